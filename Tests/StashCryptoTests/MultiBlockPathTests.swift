import StashTestSupport
import Testing

@testable import StashCrypto

/// The fast paths (several blocks at once on vectors, Poly1305 stitched into sealing and
/// opening) against the simplest code: RFC 8439's AEAD built from one keystream block at a
/// time (`ChaCha20.block`) and the public Poly1305, at every length where a path starts or
/// ends.
@Suite struct MultiBlockPathTests {
  let key = try! SymmetricKey(bytes: (0..<32).map { UInt8(255 - $0) })
  let nonce: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 0x4A, 0, 0, 0, 0]

  /// Lengths on both sides of a block (64), a vector group (256), the groups the stitched
  /// loop hands over (a multiple of 256 plus one), a page and the benchmark's message.
  static let lengths = [
    0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 319, 320, 321, 511, 512, 513, 767, 768, 769,
    4095, 4096, 4097, 16_383, 16_384, 16_385, 65_536,
  ]

  /// The sealed message RFC 8439 section 2.8 describes, from the one-block function.
  func referenceSeal(_ plaintext: [UInt8], associatedData aad: [UInt8]) throws -> [UInt8] {
    var ciphertext = plaintext
    for start in stride(from: 0, to: plaintext.count, by: 64) {
      let counter = UInt32(1 + start / 64)
      let block = try ChaCha20.block(key: key, nonce: nonce, counter: counter)
      for index in start..<min(start + 64, plaintext.count) {
        ciphertext[index] ^= block[index - start]
      }
    }
    let oneTimeKey = Array(try ChaCha20.block(key: key, nonce: nonce, counter: 0).prefix(32))
    func padding(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: (16 - count % 16) % 16) }
    let lengths = (UInt64(aad.count).littleEndian, UInt64(plaintext.count).littleEndian)
    let message =
      aad + padding(aad.count) + ciphertext + padding(ciphertext.count)
      + withUnsafeBytes(of: lengths) { Array($0) }
    return ciphertext + (try Poly1305.authenticate(message, key: oneTimeKey))
  }

  func check(length: Int, seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let plaintext = random.bytes(length)
    let aad = random.bytes(Int.random(in: 0...40, using: &random))
    let expected = try referenceSeal(plaintext, associatedData: aad)
    let sealed = try ChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
    #expect(sealed == expected, "length \(length), seed \(seed)")
    let encrypted = try ChaCha20.encrypt(plaintext, key: key, nonce: nonce, counter: 1)
    #expect(encrypted[...] == expected.dropLast(16), "ChaCha20 alone, length \(length)")
    let opened = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad)
    #expect(opened == plaintext, "length \(length), seed \(seed)")
    // One flipped bit anywhere (in the stitched groups, the tail or the tag) is refused.
    var forged = sealed
    let bit = Int.random(in: 0..<(forged.count * 8), using: &random)
    forged[bit / 8] ^= 1 << (bit % 8)
    #expect(throws: CryptoError.authenticationFailed, "length \(length), bit \(bit)") {
      try ChaCha20Poly1305.open(forged, key: key, nonce: nonce, associatedData: aad)
    }
  }

  @Test(arguments: lengths)
  func sealingAndOpeningAgreeWithTheOneBlockReference(length: Int) throws {
    try check(length: length, seed: UInt64(length))
  }

  @Test(arguments: TestEnvironment.seeds(default: 12))
  func randomLengthsUpTo70000AgreeWithTheOneBlockReference(seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    try check(length: Int.random(in: 0...70_000, using: &random), seed: seed)
  }

  @Test func theLastBlocksBeforeTheCounterEndsAgreeWithOneBlockAtATime() throws {
    // 13 blocks that end exactly at block 2^32 - 1: the vector paths run up to the last one.
    let first = UInt32.max - 12
    let plaintext = [UInt8](repeating: 0xC3, count: 13 * 64)
    let whole = try ChaCha20.encrypt(plaintext, key: key, nonce: nonce, counter: first)
    for index in 0..<13 {
      let block = try ChaCha20.block(key: key, nonce: nonce, counter: first + UInt32(index))
      #expect(whole[(index * 64)..<(index * 64 + 64)].elementsEqual(block.map { $0 ^ 0xC3 }))
    }
    #expect(throws: CryptoError.self) {
      try ChaCha20.encrypt(plaintext + [0], key: key, nonce: nonce, counter: first)
    }
  }
}
