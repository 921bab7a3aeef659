import StashBase
import StashModel
import StashTestSupport
import Testing

/// Hex is written eight digits at a time (``HexDigits``) wherever a line names a digest or an
/// id; the digits must be those a byte-at-a-time writer gives, for every byte value, every
/// length (whole words and the bytes after them) and every place a line writes them.
@Suite struct HexDigitsTests {
  static func reference(_ bytes: [UInt8]) -> String {
    bytes.map {
      String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
    }
    .joined()
  }

  @Test func everyByteValueInEveryPlaceOfAWord() {
    for value in 0...255 {
      for place in 0..<5 {
        var bytes = [UInt8](repeating: 0xA5, count: 5)
        bytes[place] = UInt8(value)
        var out = [UInt8]()
        bytes.withUnsafeBytes { JSONWriter.writeHexString($0, into: &out) }
        #expect(String(decoding: out, as: UTF8.self) == "\"" + Self.reference(bytes) + "\"")
      }
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 2))
  func digestsAndStringsOfEveryLength(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for count in 0..<70 {
      let bytes = random.bytes(count)
      var out = [UInt8]()
      bytes.withUnsafeBytes { JSONWriter.writeHexString($0, into: &out) }
      #expect(String(decoding: out, as: UTF8.self) == "\"" + Self.reference(bytes) + "\"")
    }
    for _ in 0..<500 {
      let digest = SHA256.hash(random.bytes(9))
      #expect(digest.hex == Self.reference(digest.bytes))
      #expect(SHA256Digest(hex: digest.hex) == digest)
    }
  }
}
