import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct JSONWriterTests {
  @Test(
    arguments: [
      (JSONValue.null, "null"),
      (.bool(true), "true"),
      (.bool(false), "false"),
      (.integer(0), "0"),
      (.integer(-1), "-1"),
      (.integer(.max), "9223372036854775807"),
      (.integer(.min), "-9223372036854775808"),
      (.double(1), "1.0"),
      (.double(-0.0), "-0.0"),
      (.double(0.1), "0.1"),
      (.double(1e-5), "1e-05"),
      (.double(.leastNonzeroMagnitude), "5e-324"),
      (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
      (.double(1e16), "1e+16"),
      (.double(1_764_441_600.123456), "1764441600.123456"),
      (.array([]), "[]"),
      (.object(JSONObject()), "{}"),
      (
        .array([.integer(1), .array([.null]), .object(["k": .bool(false)])]),
        #"[1,[null],{"k":false}]"#
      ),
    ] as [(JSONValue, String)])
  func writesCompactCanonicalText(value: JSONValue, expected: String) {
    #expect(JSONWriter.string(value) == expected)
    #expect(JSONWriter.bytes(value) == Array(expected.utf8))
  }

  @Test(
    arguments: [
      ("plain", #""plain""#),
      ("\"", #""\"""#),
      ("\\", #""\\""#),
      ("/", #""/""#),
      ("\u{0}", #""\u0000""#),
      ("\u{1}\u{1F}\u{B}", #""\u0001\u001f\u000b""#),
      ("\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
      ("\u{7F}", "\"\u{7F}\""),
      ("é e\u{301} 😀 \u{2028}", "\"é e\u{301} 😀 \u{2028}\""),
      ("a\"b\\c\nd", #""a\"b\\c\nd""#),
    ] as [(String, String)])
  func escapesStringsMinimally(string: String, expected: String) {
    var buffer: [UInt8] = []
    JSONWriter.writeString(string, into: &buffer)
    #expect(buffer == Array(expected.utf8))
  }

  @Test func writesObjectMembersInTheGivenOrder() {
    var object: JSONObject = ["z": .integer(1), "a": .integer(2)]
    object.append("m", .null)
    object.append("z", .integer(3))
    #expect(JSONWriter.string(.object(object)) == #"{"z":1,"a":2,"m":null,"z":3}"#)
  }

  @Test func appendsWithoutTouchingWhatIsAlreadyInTheBuffer() {
    var buffer = Array("x".utf8)
    JSONWriter.write(.array([.string("y")]), into: &buffer)
    #expect(buffer == Array(#"x["y"]"#.utf8))
  }

  @Test func objectSubscriptReplacesAppendsAndRemoves() {
    var object = JSONObject([("a", .integer(1)), ("b", .integer(2)), ("a", .integer(3))])
    object["a"] = .string("first")
    #expect(object.keys == ["a", "b", "a"])
    #expect(object["a"] == .string("first"))
    object["c"] = .null
    #expect(object.keys == ["a", "b", "a", "c"])
    object["a"] = nil
    #expect(object.keys == ["b", "c"])
    #expect(object["a"] == nil)
    #expect(object["c"] == .null)
    #expect(Array(object.map(\.key)) == ["b", "c"])
    #expect(object.map(\.value) == [.integer(2), .null])
  }

  @Test(arguments: TestEnvironment.seeds(default: 8))
  func roundTripsRandomValuesBitExactly(seed: UInt64) throws {
    print("JSONWriterTests.roundTripsRandomValuesBitExactly seed \(seed)")
    var generator = RandomJSON(seed: seed)
    for _ in 0..<300 {
      let value = generator.value()
      let bytes = JSONWriter.bytes(value)
      let parsed = try JSONParser.parse(bytes)
      #expect(isIdentical(parsed, value), "\(JSONWriter.string(value))")
      #expect(JSONWriter.bytes(value) == bytes, "writing twice gave different bytes")
      #expect(JSONWriter.bytes(parsed) == bytes, "rewriting the parsed value changed the bytes")
    }
  }

  @Test func roundTripsTheExtremeDoubles() throws {
    let doubles: [Double] = [
      0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
      .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e16,
      1e-5, 0.1, 1 / 3, 9_007_199_254_740_992.0.nextUp, 123_456_789_012_345_680,
    ]
    for double in doubles {
      let parsed = try JSONParser.parse(JSONWriter.bytes(.double(double)))
      #expect(isIdentical(parsed, .double(double)), "\(double)")
    }
  }

  /// The committed lines in `Fixtures/json/python-roundtrip/` were written by ``JSONWriter``;
  /// `readback.py` recorded what Python's `json.loads` makes of each one. Every line must still
  /// be exactly what the writer produces, and Python's reading must match ours.
  @Test func pythonReadsTheWriterOutputBackToTheSameValues() throws {
    let written = try lines(Fixtures.bytes("json/python-roundtrip/written.jsonl"))
    let readBack = try lines(Fixtures.bytes("json/python-roundtrip/python-readback.jsonl"))
    #expect(written.count == 200)
    #expect(readBack.count == written.count)
    for (line, python) in zip(written, readBack) {
      let value = try JSONParser.parse(line)
      #expect(JSONWriter.bytes(value) == line, "\(String(decoding: line, as: UTF8.self))")
      #expect(
        try JSONParser.parse(python) == tagged(value), "\(String(decoding: line, as: UTF8.self))")
    }
  }

  /// Rewrites `written.jsonl` when `STASH_RECORD_FIXTURES=1`; then run `readback.py` (see the
  /// fixture's README) to refresh Python's side.
  @Test func recordsThePythonRoundTripFixtureOnRequest() throws {
    guard Fixtures.isRecording else { return }
    var generator = RandomJSON(seed: 2_025_11_29, distinctKeys: true)
    var output: [UInt8] = []
    for _ in 0..<200 {
      JSONWriter.write(generator.value(), into: &output)
      output.append(0x0A)
    }
    try Data(output).write(to: Fixtures.url("json/python-roundtrip/written.jsonl"))
  }
}

/// Splits a JSON-lines file into its lines, without the line feeds.
func lines(_ bytes: [UInt8]) -> [[UInt8]] {
  bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map { Array($0) }
}

/// The unambiguous form `readback.py` writes: doubles as bit patterns, strings as UTF-8 hex.
func tagged(_ value: JSONValue) -> JSONValue {
  func hex<S: Sequence<UInt8>>(_ bytes: S) -> JSONValue {
    .string(
      bytes.map {
        String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
      }.joined())
  }
  switch value {
  case .null: return .array([.string("null")])
  case .bool(let flag): return .array([.string("bool"), .bool(flag)])
  case .integer(let number): return .array([.string("integer"), .string(String(number))])
  case .double(let number):
    let bits = String(number.bitPattern, radix: 16)
    let padded = String(repeating: "0", count: 16 - bits.count) + bits
    return .array([.string("double"), .string(padded)])
  case .string(let string): return .array([.string("string"), hex(string.utf8)])
  case .array(let elements): return .array([.string("array"), .array(elements.map(tagged))])
  case .object(let object):
    let members = object.map { JSONValue.array([hex($0.key.utf8), tagged($0.value)]) }
    return .array([.string("object"), .array(members)])
  }
}

/// Whether two values are the same down to the bits: doubles by `bitPattern`, strings by their
/// UTF-8 bytes (not by canonical equivalence), objects in order.
func isIdentical(_ a: JSONValue, _ b: JSONValue) -> Bool {
  switch (a, b) {
  case (.null, .null): return true
  case (.bool(let x), .bool(let y)): return x == y
  case (.integer(let x), .integer(let y)): return x == y
  case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
  case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
  case (.array(let x), .array(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { isIdentical($0, $1) }
  case (.object(let x), .object(let y)):
    return x.count == y.count
      && zip(x, y).allSatisfy {
        $0.key.utf8.elementsEqual($1.key.utf8) && isIdentical($0.value, $1.value)
      }
  default: return false
  }
}

/// Seeded random JSON values full of the awkward cases: control characters, combining marks,
/// emoji, doubles from random bit patterns, integer extremes.
struct RandomJSON {
  var random: SeededRandom
  let distinctKeys: Bool

  init(seed: UInt64, distinctKeys: Bool = false) {
    random = SeededRandom(seed: seed)
    self.distinctKeys = distinctKeys
  }

  static let pieces: [String] = [
    "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{1F}", "\n", "\r\n", "\t", "\u{8}",
    "\u{C}", "\u{7F}", "é", "e\u{301}", "\u{2028}", "\u{FFFF}", "\u{10FFFF}", "😀", "👩‍👩‍👧", "🇸🇪",
    "中", "Koleston 7/1", "ß",
  ]

  static let specialDoubles: [Double] = [
    0, -0.0, 1, -1, 0.1, 1e16, 1e-5, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
    .leastNormalMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude,
    -.greatestFiniteMagnitude, 1_764_441_600.123456,
  ]

  static let specialIntegers: [Int64] = [.min, .max, .min + 1, .max - 1, 0, -1, 1]

  mutating func below(_ bound: Int) -> Int {
    Int(random.next() % UInt64(bound))
  }

  mutating func value(depth: Int = 0) -> JSONValue {
    switch below(depth >= 3 ? 6 : 8) {
    case 0: return .null
    case 1: return .bool(random.next() % 2 == 0)
    case 2: return .integer(integer())
    case 3, 4: return .double(double())
    case 5: return .string(string())
    case 6: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
    default:
      var object = JSONObject()
      for _ in 0..<below(5) {
        let key = string()
        if distinctKeys && object[key] != nil { continue }
        object.append(key, value(depth: depth + 1))
      }
      return .object(object)
    }
  }

  mutating func integer() -> Int64 {
    if below(4) == 0 {
      return Self.specialIntegers[below(Self.specialIntegers.count)]
    }
    return Int64(bitPattern: random.next()) >> below(64)
  }

  mutating func double() -> Double {
    if below(4) == 0 {
      return Self.specialDoubles[below(Self.specialDoubles.count)]
    }
    while true {
      let candidate = Double(bitPattern: random.next())
      if candidate.isFinite { return candidate }
    }
  }

  mutating func string() -> String {
    var result = ""
    for _ in 0..<below(6) {
      result += Self.pieces[below(Self.pieces.count)]
    }
    return result
  }
}
