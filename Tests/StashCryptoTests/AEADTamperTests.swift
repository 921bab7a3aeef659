import StashTestSupport
import Testing

@testable import StashCrypto

/// What the AEADs refuse: any changed bit, the wrong key or data, short input, counter
/// overflow; and that nothing traps at the edges.
@Suite struct AEADTamperTests {
  let key = try! SymmetricKey(bytes: (0..<32).map { UInt8($0) })
  let nonce = [UInt8](repeating: 9, count: 12)
  let longNonce = [UInt8](repeating: 3, count: 24)

  @Test(arguments: [0, 1, 16, 65])
  func everyFlippedBitOfTagCiphertextOrAssociatedDataIsRejected(length: Int) throws {
    var random = SeededRandom(seed: UInt64(length))
    let plaintext = random.bytes(length)
    let aad = random.bytes(12)
    let sealed = try ChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
    for bit in 0..<(sealed.count * 8) {
      var changed = sealed
      changed[bit / 8] ^= 1 << (bit % 8)
      #expect(throws: CryptoError.authenticationFailed, "bit \(bit) of \(sealed.count) bytes") {
        try ChaCha20Poly1305.open(changed, key: key, nonce: nonce, associatedData: aad)
      }
    }
    for bit in 0..<(aad.count * 8) {
      var changed = aad
      changed[bit / 8] ^= 1 << (bit % 8)
      #expect(throws: CryptoError.authenticationFailed, "associated data bit \(bit)") {
        try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: changed)
      }
    }
    let extended = try XChaCha20Poly1305.seal(
      plaintext, key: key, nonce: longNonce, associatedData: aad)
    for bit in 0..<(extended.count * 8) {
      var changed = extended
      changed[bit / 8] ^= 1 << (bit % 8)
      #expect(throws: CryptoError.authenticationFailed, "XChaCha bit \(bit)") {
        try XChaCha20Poly1305.open(changed, key: key, nonce: longNonce, associatedData: aad)
      }
    }
  }

  @Test func wrongKeyNonceOrMissingDataIsRejected() throws {
    let sealed = try XChaCha20Poly1305.seal(
      Array("3 tubes".utf8), key: key, nonce: longNonce, associatedData: [1])
    let otherKey = try SymmetricKey(bytes: [UInt8](repeating: 1, count: 32))
    var otherNonce = longNonce
    otherNonce[0] ^= 1
    #expect(throws: CryptoError.authenticationFailed) {
      try XChaCha20Poly1305.open(sealed, key: otherKey, nonce: longNonce, associatedData: [1])
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try XChaCha20Poly1305.open(sealed, key: key, nonce: otherNonce, associatedData: [1])
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try XChaCha20Poly1305.open(sealed, key: key, nonce: longNonce)
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try XChaCha20Poly1305.open(sealed + [0], key: key, nonce: longNonce, associatedData: [1])
    }
  }

  @Test func inputsTooShortOrOfTheWrongSizeAreErrorsNotTraps() throws {
    for count in 0..<16 {
      #expect(throws: CryptoError.sealedMessageTooShort(byteCount: count, minimum: 16)) {
        try ChaCha20Poly1305.open([UInt8](repeating: 0, count: count), key: key, nonce: nonce)
      }
    }
    #expect(throws: CryptoError.invalidNonceLength(expected: 12, actual: 24)) {
      try ChaCha20Poly1305.seal([], key: key, nonce: longNonce)
    }
    #expect(throws: CryptoError.invalidNonceLength(expected: 24, actual: 12)) {
      try XChaCha20Poly1305.open([UInt8](repeating: 0, count: 40), key: key, nonce: nonce)
    }
    #expect(throws: CryptoError.invalidNonceLength(expected: 16, actual: 0)) {
      try ChaCha20.hChaCha20(key: key, input: [])
    }
    #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 31)) {
      try SymmetricKey(bytes: [UInt8](repeating: 0, count: 31))
    }
    #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 0)) {
      try Poly1305.authenticate([1], key: [])
    }
    #expect(throws: CryptoError.outputTooLong(byteCount: 8161, limit: 8160)) {
      try HKDFSHA256.expand(pseudorandomKey: [], info: [], outputByteCount: 8161)
    }
    #expect(try HKDFSHA256.expand(pseudorandomKey: [], info: [], outputByteCount: -1).isEmpty)
    #expect(
      try HKDFSHA256.expand(pseudorandomKey: [], info: [], outputByteCount: 8160).count == 8160)
  }

  @Test func emptyMessagesSealToATagAlone() throws {
    let sealed = try ChaCha20Poly1305.seal([], key: key, nonce: nonce)
    #expect(sealed.count == 16)
    #expect(try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce).isEmpty)
    #expect(try ChaCha20.encrypt([], key: key, nonce: nonce, counter: .max).isEmpty)
  }

  @Test func theBlockCounterStopsAtItsLastBlockInsteadOfWrapping() throws {
    let lastBlock = try ChaCha20.encrypt(
      [UInt8](repeating: 0, count: 64), key: key, nonce: nonce, counter: .max)
    #expect(lastBlock == (try ChaCha20.block(key: key, nonce: nonce, counter: .max)))
    #expect(throws: CryptoError.messageTooLong(byteCount: 65, limit: 64)) {
      try ChaCha20.encrypt([UInt8](repeating: 0, count: 65), key: key, nonce: nonce, counter: .max)
    }
    #expect(throws: CryptoError.messageTooLong(byteCount: 257, limit: 256)) {
      try ChaCha20.encrypt(
        [UInt8](repeating: 0, count: 257), key: key, nonce: nonce, counter: .max - 3)
    }
    #expect(ChaCha20Poly1305.maximumPlaintextByteCount == 274_877_906_880)
    #expect(ChaCha20.maximumByteCount(from: 0) == 274_877_906_944)
  }

  @Test(arguments: TestEnvironment.seeds(default: 8))
  func sealingInPlaceOfTheFourBlockPathAgreesWithOneBlockAtATime(seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let plaintext = random.bytes(Int.random(in: 0...1500, using: &random))
    let counter = UInt32.random(in: 0...1000, using: &random)
    let whole = try ChaCha20.encrypt(plaintext, key: key, nonce: nonce, counter: counter)
    var pieces: [UInt8] = []
    for (index, start) in stride(from: 0, to: plaintext.count, by: 64).enumerated() {
      let block = Array(plaintext[start..<min(start + 64, plaintext.count)])
      pieces += try ChaCha20.encrypt(
        block, key: key, nonce: nonce, counter: counter + UInt32(index))
    }
    #expect(whole == pieces, "seed \(seed); replay with STASH_SEED=\(seed)")
  }

  @Test func constantTimeEqualityComparesLengthsAndEveryByte() {
    #expect(ConstantTime.equal([], []))
    #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
    #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
    #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
    #expect(!ConstantTime.equal([0, 2, 3], [1, 2, 3]))
    #expect(!HMACSHA256.isValid(Array(repeating: 0, count: 15), for: [], key: []))
  }

  @Test func systemRandomFillsWithDistinctBytes() throws {
    #expect(try SystemRandom.bytes(0).isEmpty)
    let first = try SystemRandom.bytes(1000)
    let second = try SystemRandom.bytes(1000)
    #expect(first.count == 1000)
    #expect(first != second)
    #expect(Set(first).count > 200)
    #expect(try SymmetricKey.random() != (try SymmetricKey.random()))
  }
}
