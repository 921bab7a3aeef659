import StashBase
import StashModel
import StashTestSupport
import Testing

/// SHA-256 against FIPS 180-4 and Python `hashlib` vectors, one-shot and streaming.
@Suite struct SHA256Tests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
        + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
    ("\u{E9}", "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"),
  ])
  func hashesKnownMessagesToTheirPublishedDigests(message: String, expected: String) {
    #expect(SHA256.hash(message).hex == expected)
    #expect(SHA256.hash(Array(message.utf8)).hex == expected)
    Array(message.utf8).withUnsafeBytes { raw in
      #expect(SHA256.hash(raw).hex == expected)
    }
  }

  @Test func hashesOneMillionLettersAOneShotAndInPieces() {
    let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(SHA256.hash(message).hex == expected)
    var hasher = SHA256()
    let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 {
      hasher.update(piece)
    }
    #expect(hasher.finalize().hex == expected)
  }

  @Test func hashesEveryLengthFromZeroTo300LikeHashlib() throws {
    let rows = try fixtureRows("sha256/lengths.txt")
    #expect(rows.map { Int($0[0]) } == Array(0...300))
    for row in rows {
      let length = Int(row[0])!
      #expect(SHA256.hash(formulaBytes(length)).hex == row[1], "length \(length)")
    }
  }

  @Test func hashesSeededRandomMessagesLikeHashlib() throws {
    let rows = try fixtureRows("sha256/random.txt")
    #expect(rows.count == 64)
    for row in rows {
      let (seed, length) = (UInt64(row[0])!, Int(row[1])!)
      var random = SeededRandom(seed: seed)
      let message = random.bytes(length)
      #expect(hexString(message.prefix(16)) == row[2], "SeededRandom changed; seed \(seed)")
      #expect(SHA256.hash(message).hex == row[3], "seed \(seed), length \(length)")
    }
  }

  @Test(arguments: [1, 55, 56, 63, 64, 65, 127, 128, 129])
  func streamingInFixedChunksMatchesTheVectors(chunkSize: Int) throws {
    for row in try fixtureRows("sha256/lengths.txt") {
      let length = Int(row[0])!
      let message = formulaBytes(length)
      var hasher = SHA256()
      for start in stride(from: 0, to: length, by: chunkSize) {
        hasher.update(Array(message[start..<min(start + chunkSize, length)]))
      }
      #expect(hasher.finalize().hex == row[1], "length \(length) in chunks of \(chunkSize)")
    }
  }

  @Test(arguments: [55, 56, 63, 64, 65])
  func streamingSplitAtABlockBoundaryMatchesOneShot(split: Int) {
    for length in split...(split + 200) {
      let message = formulaBytes(length)
      var hasher = SHA256()
      hasher.update(Array(message[..<split]))
      hasher.update(Array(message[split...]))
      #expect(hasher.finalize() == SHA256.hash(message), "length \(length) split at \(split)")
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 32))
  func streamingInRandomChunksMatchesOneShot(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let message = random.bytes(Int.random(in: 0...5000, using: &random))
    let expected = SHA256.hash(message)
    var hasher = SHA256()
    var offset = 0
    for size in randomChunkSizes(total: message.count, using: &random) {
      let range = offset..<(offset + size)
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        hasher.update(Array(message[range]))
      case 1:
        message.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[range])) }
      default:
        // Valid UTF-8 only when ASCII, so feed as a string only the bytes below 0x80.
        if message[range].allSatisfy({ $0 < 0x80 }) {
          hasher.update(String(decoding: message[range], as: UTF8.self))
        } else {
          hasher.update(Array(message[range]))
        }
      }
      offset += size
    }
    #expect(
      hasher.finalize() == expected,
      "seed \(seed), length \(message.count); replay with STASH_SEED=\(seed) swift test")
  }

  @Test func stringUpdatesHashTheUTF8BytesWithoutSeparators() {
    var hasher = SHA256()
    hasher.update("ab")
    hasher.update("")
    hasher.update("c")
    #expect(hasher.finalize() == SHA256.hash("abc"))
    #expect(
      SHA256.hash("gr\u{FC}\u{DF}e \u{1F4E6}")
        == SHA256.hash(Array("gr\u{FC}\u{DF}e \u{1F4E6}".utf8)))
  }

  @Test func finalizeLeavesTheHasherUsable() {
    var hasher = SHA256()
    hasher.update("ab")
    let first = hasher.finalize()
    #expect(hasher.finalize() == first)
    #expect(first == SHA256.hash("ab"))
    hasher.update("c")
    #expect(hasher.finalize() == SHA256.hash("abc"))
  }

  @Test func emptyUpdatesChangeNothing() {
    var hasher = SHA256()
    hasher.update([UInt8]())
    hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
    hasher.update("")
    #expect(hasher.finalize() == SHA256.hash([UInt8]()))
    #expect(SHA256().finalize().hex == SHA256.hash("").hex)
  }

  @Test func hashesFromUnalignedAddresses() {
    var random = SeededRandom(seed: 7)
    let backing = random.bytes(4096 + 16)
    backing.withUnsafeBytes { raw in
      for offset in 0..<16 {
        let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 4096)])
        #expect(
          SHA256.hash(slice) == SHA256.hash(Array(backing[offset..<(offset + 4096)])),
          "seed 7, offset \(offset)")
      }
    }
  }
}

/// The digest value type: hex and byte conversions, validation, ordering and hashing.
@Suite struct SHA256DigestTests {
  @Test(arguments: TestEnvironment.seeds(default: 8))
  func hexAndBytesRoundTrip(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for _ in 0..<100 {
      let bytes = random.bytes(32)
      let digest = SHA256Digest(bytes: bytes)!
      #expect(digest.bytes == bytes, "seed \(seed)")
      #expect(digest.hex == hexString(bytes), "seed \(seed)")
      #expect(digest.description == digest.hex, "seed \(seed)")
      #expect(SHA256Digest(hex: digest.hex) == digest, "seed \(seed)")
      #expect(SHA256Digest(hex: digest.hex.uppercased()) == digest, "seed \(seed)")
      #expect(SHA256Digest(bytes: digest.bytes) == digest, "seed \(seed)")
      digest.withUnsafeBytes { raw in
        #expect(Array(raw) == bytes, "seed \(seed)")
      }
    }
  }

  @Test func acceptsMixedCaseHex() {
    let lower = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    let mixed = "BA7816bf8F01CFEA414140de5dae2223b00361A396177A9CB410FF61F20015aD"
    #expect(SHA256Digest(hex: mixed) == SHA256.hash("abc"))
    #expect(SHA256Digest(hex: mixed)?.hex == lower)
  }

  @Test(arguments: [
    "",
    String(repeating: "a", count: 63),
    String(repeating: "a", count: 65),
    String(repeating: "a", count: 128),
    "g" + String(repeating: "0", count: 63),
    String(repeating: "0", count: 63) + "G",
    " " + String(repeating: "0", count: 63),
    String(repeating: "0", count: 63) + "\n",
    "0x" + String(repeating: "0", count: 62),
    "-" + String(repeating: "0", count: 63),
    String(repeating: "0", count: 62) + "\u{E9}",
    String(repeating: "\u{FF10}", count: 64),
  ])
  func rejectsTextThatIsNotExactly64HexDigits(text: String) {
    #expect(SHA256Digest(hex: text) == nil)
  }

  @Test(arguments: [0, 1, 31, 33, 64])
  func rejectsByteCountsOtherThan32(count: Int) {
    #expect(SHA256Digest(bytes: [UInt8](repeating: 0xAB, count: count)) == nil)
  }

  @Test func acceptsAnyCollectionOf32Bytes() {
    let bytes = (0..<32).map { UInt8($0) }
    let expected = SHA256Digest(bytes: bytes)!
    #expect(SHA256Digest(bytes: bytes[...]) == expected)
    #expect(SHA256Digest(bytes: (0..<32).lazy.map { UInt8($0) }) == expected)
    #expect(SHA256Digest(bytes: ([0xFF] + bytes).dropFirst()) == expected)
    #expect(
      SHA256Digest(bytes: repeatElement(UInt8(7), count: 32))?.bytes.allSatisfy { $0 == 7 } == true)
  }

  @Test func appendsItsBytesAfterExistingContent() {
    let digest = SHA256.hash("abc")
    var buffer: [UInt8] = [1, 2, 3]
    digest.appendBytes(to: &buffer)
    digest.appendBytes(to: &buffer)
    #expect(buffer == [1, 2, 3] + digest.bytes + digest.bytes)
  }

  @Test(arguments: TestEnvironment.seeds(default: 8))
  func ordersLikeItsHexText(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    // Digests that share long prefixes, so that every one of the words decides some pairs.
    var digests: [SHA256Digest] = []
    let base = random.bytes(32)
    for _ in 0..<200 {
      var bytes = base
      let from = Int.random(in: 0..<32, using: &random)
      for index in from..<32 {
        bytes[index] = UInt8.random(in: 0...255, using: &random)
      }
      digests.append(SHA256Digest(bytes: bytes)!)
    }
    #expect(digests.sorted().map(\.hex) == digests.map(\.hex).sorted(), "seed \(seed)")
    for (left, right) in zip(digests, digests.reversed()) {
      #expect((left < right) == (left.hex < right.hex), "seed \(seed): \(left) vs \(right)")
      #expect((left == right) == (left.hex == right.hex), "seed \(seed)")
    }
  }

  @Test func equalDigestsAreOneDictionaryKey() {
    let fromHash = SHA256.hash("abc")
    let fromHex = SHA256Digest(hex: fromHash.hex.uppercased())!
    let fromBytes = SHA256Digest(bytes: fromHash.bytes)!
    let keys: Set<SHA256Digest> = [fromHash, fromHex, fromBytes, SHA256.hash("abd")]
    #expect(keys.count == 2)
    #expect(fromHash.hashValue == fromHex.hashValue)
  }
}

/// The message of `length` bytes the length vectors use: byte i = (i * 31 + 7) & 0xff.
private func formulaBytes(_ length: Int) -> [UInt8] {
  (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}

/// Chunk sizes adding up to `total`, often near the 64-byte block boundaries, sometimes 0.
private func randomChunkSizes(total: Int, using random: inout SeededRandom) -> [Int] {
  let favoured = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129]
  var sizes: [Int] = []
  var left = total
  while left > 0 {
    let size =
      Bool.random(using: &random)
      ? favoured.randomElement(using: &random)! : Int.random(in: 0...300, using: &random)
    sizes.append(min(size, left))
    left -= min(size, left)
  }
  return sizes
}

/// The lowercase hex of some bytes.
private func hexString(_ bytes: some Sequence<UInt8>) -> String {
  bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// The non-comment lines of a fixture file, each split into its space-separated fields.
private func fixtureRows(_ path: String) throws -> [[String]] {
  let text = String(decoding: try Fixtures.bytes(path), as: UTF8.self)
  return text.split(separator: "\n")
    .filter { !$0.hasPrefix("#") }
    .map { $0.split(separator: " ").map(String.init) }
}
