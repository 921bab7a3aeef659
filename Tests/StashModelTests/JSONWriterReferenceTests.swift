import StashBase
import StashTestSupport
import Testing

/// ``JSONWriter`` writes into a buffer it grows itself (issue 26, item 5: the stores' lines
/// and the segments' are most of what a first sync encodes): its bytes are those of the plain
/// writer it replaced, one `Array` append at a time, kept here as the reference.
@Suite struct JSONWriterReferenceTests {
  /// The writer as it was: every string escaped byte by byte, doubles by `description`.
  static func reference(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .null: out += Array("null".utf8)
    case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
    case .integer(let number): out += Array(String(number).utf8)
    case .double(let number): out += Array(number.description.utf8)
    case .string(let string): reference(string, into: &out)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        reference(element, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      out.append(UInt8(ascii: "{"))
      for (index, (key, member)) in object.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        reference(key, into: &out)
        out.append(UInt8(ascii: ":"))
        reference(member, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  static func reference(_ string: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
      case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
      case 0x08: out += Array(#"\b"#.utf8)
      case 0x09: out += Array(#"\t"#.utf8)
      case 0x0A: out += Array(#"\n"#.utf8)
      case 0x0C: out += Array(#"\f"#.utf8)
      case 0x0D: out += Array(#"\r"#.utf8)
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  @Test(arguments: TestEnvironment.seeds(default: 8))
  func writesTheReferenceBytes(seed: UInt64) {
    var generator = RandomJSON(seed: seed)
    for round in 0..<300 {
      var value = generator.value()
      if round % 10 == 0 {
        // Past the first buffer: long strings and many members, so that it grows.
        var object = JSONObject()
        for member in 0..<40 {
          object.append(
            "key \(member) " + String(repeating: generator.string(), count: 20), value)
        }
        value = .object(object)
      }
      var expected = [UInt8]()
      Self.reference(value, into: &expected)
      #expect(JSONWriter.bytes(value) == expected)
      var buffer = Array("kept".utf8)
      JSONWriter.write(value, into: &buffer)
      #expect(buffer == Array("kept".utf8) + expected)
      let string = generator.string() + String(repeating: generator.string(), count: 50)
      var quoted = [UInt8]()
      Self.reference(string, into: &quoted)
      var written = Array("kept".utf8)
      JSONWriter.writeString(string, into: &written)
      #expect(written == Array("kept".utf8) + quoted)
    }
  }
}

/// The pieces the direct line writers use (``JSONWriter/writeInteger(_:into:)``,
/// ``JSONWriter/writeDouble(_:into:)``) write what the tree writer writes for the same value:
/// an integer without building a string, a whole double below 2^53 without the general
/// algorithm, everything else through `description`.
@Suite struct JSONWriterPieceTests {
  static func piece(_ write: (inout [UInt8]) -> Void) -> [UInt8] {
    var bytes = Array("x".utf8)  // what the buffer held stays
    write(&bytes)
    return bytes
  }

  @Test func edgeNumbersAreWrittenAsTheTreeWritesThem() {
    let integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .min + 1, 1 << 53]
    for number in integers {
      #expect(
        Self.piece { JSONWriter.writeInteger(number, into: &$0) }
          == Array("x".utf8) + JSONWriter.bytes(.integer(number)), "\(number)")
    }
    let doubles: [Double] = [
      0, -0.0, 1, -1, 0.5, -0.5, 1e15, -1e15, 1e16, 0x1p53, -0x1p53, 0x1p53 - 1, -(0x1p53 - 1),
      0x1p53 + 2, 1_767_225_600, 1_796_634_500.82894, .ulpOfOne, .leastNonzeroMagnitude,
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 123_456_789_012_345,
      4_503_599_627_370_495.5,
    ]
    for number in doubles {
      #expect(
        Self.piece { JSONWriter.writeDouble(number, into: &$0) }
          == Array("x".utf8) + JSONWriter.bytes(.double(number)), "\(number)")
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func randomNumbersAreWrittenAsTheTreeWritesThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for _ in 0..<20_000 {
      let integer = DirectReadLines.randomInteger(&random)
      #expect(
        Self.piece { JSONWriter.writeInteger(integer, into: &$0) }
          == Array("x".utf8) + JSONWriter.bytes(.integer(integer)), "\(integer)")
      // Whole doubles of every magnitude up to 2^64, and the writer's random doubles.
      let whole = Double(Int64(bitPattern: random.next()) >> (random.next() % 64))
      for number in [whole, DirectReadLines.randomDouble(&random)] {
        #expect(
          Self.piece { JSONWriter.writeDouble(number, into: &$0) }
            == Array("x".utf8) + JSONWriter.bytes(.double(number)), "\(number)")
      }
    }
  }
}
