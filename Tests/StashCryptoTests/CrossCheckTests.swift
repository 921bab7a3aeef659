import StashBase
import StashCrypto
import StashModel
import StashTestSupport
import Testing

/// Random lengths (0 to 70,000 bytes) and associated data against pyca/cryptography.
@Suite struct CrossCheckTests {
  let vectors: CrossCheckVectors

  init() throws {
    vectors = try CrossCheckVectors.load()
  }

  /// The message a vector names, checked against its recorded head.
  func message(seed: UInt64, length: Int, head: String) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    let message = random.bytes(length)
    #expect(hex(message.prefix(16)) == head, "SeededRandom changed; seed \(seed)")
    return message
  }

  func check(_ vector: CrossCheckVectors.AEAD, extended: Bool) throws {
    let plaintext = message(seed: vector.seed, length: vector.length, head: vector.head)
    let key = try SymmetricKey(bytes: bytes(hex: vector.key))
    let (nonce, aad) = (bytes(hex: vector.nonce), bytes(hex: vector.aad))
    let sealed =
      extended
      ? try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
      : try ChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
    let ciphertext = Array(sealed.dropLast(16))
    #expect(hex(sealed.suffix(16)) == vector.tag, "seed \(vector.seed)")
    #expect(SHA256.hash(ciphertext).hex == vector.ciphertextSHA256, "seed \(vector.seed)")
    let theirs = vector.ciphertext.map { bytes(hex: $0) + bytes(hex: vector.tag) } ?? sealed
    let opened =
      extended
      ? try XChaCha20Poly1305.open(theirs, key: key, nonce: nonce, associatedData: aad)
      : try ChaCha20Poly1305.open(theirs, key: key, nonce: nonce, associatedData: aad)
    #expect(opened == plaintext, "seed \(vector.seed)")
  }

  @Test func chaCha20Poly1305AgreesWithCryptography() throws {
    #expect(vectors.chacha20Poly1305.count == 32)
    #expect(vectors.chacha20Poly1305.contains { $0.length == 70_000 })
    for vector in vectors.chacha20Poly1305 { try check(vector, extended: false) }
  }

  @Test func xChaCha20Poly1305AgreesWithCryptography() throws {
    #expect(vectors.xchacha20Poly1305.count == 32)
    for vector in vectors.xchacha20Poly1305 { try check(vector, extended: true) }
  }

  @Test func hmacAgreesWithCryptography() {
    #expect(vectors.hmacSHA256.count == 32)
    for vector in vectors.hmacSHA256 {
      let text = message(seed: vector.seed, length: vector.length, head: vector.head)
      let code = HMACSHA256.authenticationCode(for: text, key: bytes(hex: vector.key))
      #expect(hex(code) == vector.mac, "seed \(vector.seed)")
    }
  }

  @Test func hkdfAgreesWithCryptography() throws {
    #expect(vectors.hkdfSHA256.count == 32)
    for vector in vectors.hkdfSHA256 {
      let okm = try HKDFSHA256.deriveKey(
        inputKeyMaterial: bytes(hex: vector.ikm), salt: bytes(hex: vector.salt),
        info: bytes(hex: vector.info), outputByteCount: vector.length)
      #expect(hex(okm) == vector.okm, "ikm \(vector.ikm)")
    }
  }
}
