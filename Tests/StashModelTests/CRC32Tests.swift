import StashBase
import StashModel
import StashTestSupport
import Testing

/// CRC-32 against published values and Python `zlib.crc32` vectors, whole and in pieces.
@Suite struct CRC32Tests {
  @Test(
    arguments: [
      ("", 0x0000_0000),
      ("a", 0xE8B7_BE43),
      ("123456789", 0xCBF4_3926),
      ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ] as [(String, UInt32)])
  func checksumsKnownMessagesToTheirPublishedValues(message: String, expected: UInt32) {
    #expect(CRC32.checksum(Array(message.utf8)) == expected)
    Array(message.utf8).withUnsafeBytes { raw in
      #expect(CRC32.checksum(raw) == expected)
    }
  }

  @Test func checksumsEveryLengthFromZeroTo300LikeZlib() throws {
    let rows = try fixtureRows("crc32/lengths.txt")
    #expect(rows.map { Int($0[0]) } == Array(0...300))
    for row in rows {
      let length = Int(row[0])!
      #expect(CRC32.checksum(formulaBytes(length)) == UInt32(row[1], radix: 16), "length \(length)")
    }
  }

  @Test func checksumsSeededRandomMessagesLikeZlib() throws {
    let rows = try fixtureRows("crc32/random.txt")
    #expect(rows.count == 64)
    for row in rows {
      let (seed, length) = (UInt64(row[0])!, Int(row[1])!)
      var random = SeededRandom(seed: seed)
      let message = random.bytes(length)
      #expect(hexString(message.prefix(16)) == row[2], "SeededRandom changed; seed \(seed)")
      #expect(
        CRC32.checksum(message) == UInt32(row[3], radix: 16), "seed \(seed), length \(length)")
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 32))
  func continuingInRandomPiecesMatchesOneShot(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let message = random.bytes(Int.random(in: 0...5000, using: &random))
    var crc: UInt32 = 0
    var offset = 0
    while offset < message.count {
      let size = min(Int.random(in: 0...100, using: &random), message.count - offset)
      let range = offset..<(offset + size)
      if Bool.random(using: &random) {
        crc = CRC32.checksum(Array(message[range]), continuing: crc)
      } else {
        message.withUnsafeBytes { raw in
          crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[range]), continuing: crc)
        }
      }
      offset += size
    }
    #expect(
      crc == CRC32.checksum(message),
      "seed \(seed), length \(message.count); replay with STASH_SEED=\(seed) swift test")
  }

  @Test func continuingWithNothingKeepsThePreviousValue() {
    #expect(CRC32.checksum([], continuing: 0xCBF4_3926) == 0xCBF4_3926)
    #expect(CRC32.checksum(UnsafeRawBufferPointer(start: nil, count: 0), continuing: 7) == 7)
  }

  @Test func continuingJoinsTwoHalves() {
    let first = CRC32.checksum(Array("1234".utf8))
    #expect(CRC32.checksum(Array("56789".utf8), continuing: first) == 0xCBF4_3926)
  }

  @Test func checksumsFromUnalignedAddresses() {
    var random = SeededRandom(seed: 11)
    let backing = random.bytes(1000 + 16)
    backing.withUnsafeBytes { raw in
      for offset in 0..<16 {
        let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 1000)])
        #expect(
          CRC32.checksum(slice) == CRC32.checksum(Array(backing[offset..<(offset + 1000)])),
          "seed 11, offset \(offset)")
      }
    }
  }
}

/// The message of `length` bytes the length vectors use: byte i = (i * 31 + 7) & 0xff.
private func formulaBytes(_ length: Int) -> [UInt8] {
  (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
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
