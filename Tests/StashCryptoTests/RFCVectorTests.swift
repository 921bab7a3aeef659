import Testing

@testable import StashCrypto

/// Every test vector of RFC 8439, the XChaCha draft, RFC 4231 and RFC 5869.
@Suite struct RFCVectorTests {
  let vectors: RFCVectors

  init() throws {
    vectors = try RFCVectors.load()
  }

  @Test func vectorCountsMatchThePublishedDocuments() {
    #expect(vectors.chacha20.block.count == 6)
    #expect(vectors.chacha20.encrypt.count == 4)
    #expect(vectors.poly1305.count == 12)
    #expect(vectors.poly1305KeyGeneration.count == 4)
    #expect(vectors.chacha20Poly1305.count == 2)
    #expect(vectors.xchacha20.hchacha20.count == 1)
    #expect(vectors.xchacha20.stream.count == 2)
    #expect(vectors.xchacha20.aead.count == 1)
    #expect(vectors.hmacSHA256.count == 7)
    #expect(vectors.hkdfSHA256.count == 3)
  }

  @Test func quarterRoundMatchesSections211And221() {
    for vector in vectors.chacha20.quarterRound {
      var (a, b, c, d) = (vector.input[0], vector.input[1], vector.input[2], vector.input[3])
      quarterRound(&a, &b, &c, &d)
      #expect([a, b, c, d] == vector.output, "\(vector.name)")
    }
    let state = vectors.chacha20.stateQuarterRound
    var words = state.input
    var (a, b, c, d) = (words[2], words[7], words[8], words[13])
    quarterRound(&a, &b, &c, &d)
    (words[2], words[7], words[8], words[13]) = (a, b, c, d)
    #expect(words == state.output, "\(state.name)")
  }

  @Test func blockFunctionMatchesEveryBlockVector() throws {
    for vector in vectors.chacha20.block {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let block = try ChaCha20.block(
        key: key, nonce: bytes(hex: vector.nonce), counter: vector.counter)
      #expect(hex(block) == vector.keystream, "\(vector.name)")
    }
  }

  @Test func encryptionMatchesEveryCipherVectorBothWays() throws {
    for vector in vectors.chacha20.encrypt {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let nonce = bytes(hex: vector.nonce)
      let ciphertext = try ChaCha20.encrypt(
        bytes(hex: vector.plaintext), key: key, nonce: nonce, counter: vector.counter)
      #expect(hex(ciphertext) == vector.ciphertext, "\(vector.name)")
      let plaintext = try ChaCha20.encrypt(
        ciphertext, key: key, nonce: nonce, counter: vector.counter)
      #expect(hex(plaintext) == vector.plaintext, "\(vector.name)")
    }
  }

  @Test func poly1305MatchesEveryTagVectorWholeAndByteByByte() throws {
    for vector in vectors.poly1305 {
      let key = bytes(hex: vector.key)
      let message = bytes(hex: vector.message)
      #expect(hex(try Poly1305.authenticate(message, key: key)) == vector.tag, "\(vector.name)")
      var mac = try Poly1305(key: key)
      for byte in message { mac.update([byte]) }
      #expect(hex(mac.finalize()) == vector.tag, "\(vector.name), byte by byte")
    }
  }

  @Test func oneTimeKeysAreTheFirstHalfOfBlockZero() throws {
    for vector in vectors.poly1305KeyGeneration {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let block = try ChaCha20.block(key: key, nonce: bytes(hex: vector.nonce), counter: 0)
      #expect(hex(block.prefix(32)) == vector.oneTimeKey, "\(vector.name)")
    }
  }

  @Test func aeadSealsAndOpensEveryVector() throws {
    for vector in vectors.chacha20Poly1305 {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let (nonce, aad) = (bytes(hex: vector.nonce), bytes(hex: vector.aad))
      let sealed = try ChaCha20Poly1305.seal(
        bytes(hex: vector.plaintext), key: key, nonce: nonce, associatedData: aad)
      #expect(hex(sealed) == vector.ciphertext + vector.tag, "\(vector.name)")
      let opened = try ChaCha20Poly1305.open(
        bytes(hex: vector.ciphertext + vector.tag), key: key, nonce: nonce, associatedData: aad)
      #expect(hex(opened) == vector.plaintext, "\(vector.name)")
    }
  }

  @Test func hChaCha20MatchesTheDraftVector() throws {
    for vector in vectors.xchacha20.hchacha20 {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let subkey = try ChaCha20.hChaCha20(key: key, input: bytes(hex: vector.nonce))
      #expect(subkey == (try SymmetricKey(bytes: bytes(hex: vector.subkey))), "\(vector.name)")
    }
  }

  @Test func xChaCha20StreamMatchesTheDraftVectors() throws {
    for vector in vectors.xchacha20.stream {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let (subkey, inner) = try XChaCha20Poly1305.split(key: key, nonce: bytes(hex: vector.nonce))
      let plaintext = bytes(hex: vector.plaintext)
      let stream = try ChaCha20.encrypt(
        [UInt8](repeating: 0, count: plaintext.count), key: subkey, nonce: inner,
        counter: vector.counter)
      #expect(hex(stream) == vector.keystream, "\(vector.name)")
      let ciphertext = try ChaCha20.encrypt(
        plaintext, key: subkey, nonce: inner, counter: vector.counter)
      #expect(hex(ciphertext) == vector.ciphertext, "\(vector.name)")
    }
  }

  @Test func xChaCha20Poly1305SealsAndOpensTheDraftVector() throws {
    for vector in vectors.xchacha20.aead {
      let key = try SymmetricKey(bytes: bytes(hex: vector.key))
      let (nonce, aad) = (bytes(hex: vector.nonce), bytes(hex: vector.aad))
      let sealed = try XChaCha20Poly1305.seal(
        bytes(hex: vector.plaintext), key: key, nonce: nonce, associatedData: aad)
      #expect(hex(sealed) == vector.ciphertext + vector.tag, "\(vector.name)")
      let opened = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad)
      #expect(hex(opened) == vector.plaintext, "\(vector.name)")
    }
  }

  @Test func hmacMatchesRFC4231IncludingTheTruncatedCase() {
    for vector in vectors.hmacSHA256 {
      let (key, message) = (bytes(hex: vector.key), bytes(hex: vector.message))
      let code = HMACSHA256.authenticationCode(for: message, key: key)
      #expect(hex(code.prefix(vector.mac.count / 2)) == vector.mac, "\(vector.name)")
      #expect(HMACSHA256.isValid(bytes(hex: vector.mac), for: message, key: key), "\(vector.name)")
    }
  }

  @Test func hkdfMatchesRFC5869StepByStep() throws {
    for vector in vectors.hkdfSHA256 {
      let prk = HKDFSHA256.extract(
        salt: bytes(hex: vector.salt), inputKeyMaterial: bytes(hex: vector.ikm))
      #expect(hex(prk) == vector.prk, "\(vector.name)")
      let okm = try HKDFSHA256.expand(
        pseudorandomKey: prk, info: bytes(hex: vector.info), outputByteCount: vector.length)
      #expect(hex(okm) == vector.okm, "\(vector.name)")
    }
  }
}
