import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct JSONParserTests {
  @Test func readsEveryKindOfValue() throws {
    let text = #" { "a" : [ null , true , false , 12 , -3.5 , "x" , { } , [ ] ] } "#
    let expected = JSONValue.object([
      "a": .array([
        .null, .bool(true), .bool(false), .integer(12), .double(-3.5), .string("x"),
        .object(JSONObject()), .array([]),
      ])
    ])
    #expect(try JSONParser.parse(text) == expected)
  }

  @Test func theThreeInputFormsAgree() throws {
    let text = #"{"name":"Koleston 7/1","n":[1,2.5,"é😀"]}"#
    let fromString = try JSONParser.parse(text)
    let fromArray = try JSONParser.parse(Array(text.utf8))
    let fromBuffer = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0) }
    #expect(fromString == fromArray)
    #expect(fromString == fromBuffer)
  }

  @Test func keepsIntegersAndDoublesApart() throws {
    #expect(try JSONParser.parse("1") == .integer(1))
    #expect(try JSONParser.parse("1.0") == .double(1))
    #expect(try JSONParser.parse("1e2") == .double(100))
    #expect(try JSONParser.parse("1E+2") == .double(100))
    #expect(try JSONParser.parse("0") == .integer(0))
    #expect(try JSONParser.parse("-17") == .integer(-17))
    #expect(try JSONParser.parse("9223372036854775807") == .integer(.max))
    #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
    #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808.0))
    #expect(try JSONParser.parse("12345678901234567890123") == .double(1.2345678901234568e22))
  }

  @Test func keepsTheSignOfNegativeZero() throws {
    for text in ["-0", "-0.0", "-0e10", "-0.000e-5", "-1e-400"] {
      guard case .double(let value) = try JSONParser.parse(text) else {
        Issue.record("\(text) did not give a double")
        continue
      }
      #expect(value.bitPattern == (-0.0 as Double).bitPattern, "\(text)")
    }
    guard case .double(let positive) = try JSONParser.parse("0.0") else {
      Issue.record("0.0 did not give a double")
      return
    }
    #expect(positive.bitPattern == 0)
  }

  @Test(arguments: [
    "5e-324", "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
    "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
    "1.7976931348623157e+308", "1.7976931348623157e308", "0.1", "0.3", "1764441600.123456",
    "1764441700.5", "9007199254740993.0", "9007199254740993e0", "1e23", "8.41e21", "1e22",
    "123456789012345678901234567890e-20", "0.000000000000000000000000000001",
    "7.2057594037927933e16",
    "3.141592653589793238462643383279502884197",
    "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124", "3e-324", "2e-324", "1e-400",
    "9007199254740993.0", "9007199254740995.0", "9007199254740993.5", "900719925474099.25e1",
    "18446744073709551615.0", "1844674407370955161.5", "1.7644416001234567e9",
    "17644416001234567e-7",
  ])
  func roundsDecimalLiteralsCorrectly(_ text: String) throws {
    let oracle = try #require(Double(text))
    guard case .double(let value) = try JSONParser.parse(text) else {
      Issue.record("\(text) did not give a double")
      return
    }
    #expect(value.bitPattern == oracle.bitPattern, "\(text): \(value) != \(oracle)")
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func agreesWithTheStandardLibraryOnRandomLiterals(seed: UInt64) throws {
    print("JSONParserTests.agreesWithTheStandardLibraryOnRandomLiterals seed \(seed)")
    var random = SeededRandom(seed: seed)
    for _ in 0..<5_000 {
      var text = random.next() % 2 == 0 ? "-" : ""
      let integerDigits = Int(random.next() % 22) + 1
      for index in 0..<integerDigits {
        let digit = index == 0 && integerDigits > 1 ? 1 + random.next() % 9 : random.next() % 10
        text += String(digit)
      }
      if random.next() % 2 == 0 {
        text += "."
        for _ in 0...(random.next() % 20) {
          text += String(random.next() % 10)
        }
      }
      if random.next() % 2 == 0 {
        text += "e" + ["", "+", "-"][Int(random.next() % 3)] + String(random.next() % 330)
      }
      let parsed: JSONValue
      do {
        parsed = try JSONParser.parse(text)
      } catch {
        let oracle = try #require(Double(text))
        #expect(!oracle.isFinite, "\(text) rejected: \(error)")
        continue
      }
      switch parsed {
      case .integer(let value):
        #expect(Int64(text) == value, "\(text)")
      case .double(let value):
        let oracle = try #require(Double(text))
        #expect(value.bitPattern == oracle.bitPattern, "\(text): \(value) != \(oracle)")
      default:
        Issue.record("\(text) gave \(parsed)")
      }
    }
  }

  /// Long mantissas with small exponents take the parser's 128-bit integer path; ties and
  /// near-ties are where it could go wrong.
  @Test(arguments: TestEnvironment.seeds(default: 4))
  func roundsLongMantissasCorrectly(seed: UInt64) throws {
    print("JSONParserTests.roundsLongMantissasCorrectly seed \(seed)")
    var random = SeededRandom(seed: seed)
    for _ in 0..<5_000 {
      var digits = String(1 + random.next() % 9)
      for _ in 0..<(14 + random.next() % 5) {
        digits += String(random.next() % 10)
      }
      if random.next() % 4 == 0 {
        // Make a tie or a near-tie: 2^53 + 1 and neighbours, scaled.
        digits =
          String(9_007_199_254_740_993 + random.next() % 3)
          + ["", "0", "5", "49"][
            Int(random.next() % 4)]
      }
      let point = Int(random.next() % UInt64(digits.count))
      var text = String(digits.prefix(point + 1)) + "." + String(digits.dropFirst(point + 1)) + "0"
      if random.next() % 2 == 0 {
        text += "e" + String(Int(random.next() % 41) - 20)
      }
      let oracle = try #require(Double(text))
      guard case .double(let value) = try JSONParser.parse(text) else {
        Issue.record("\(text) did not give a double")
        continue
      }
      #expect(value.bitPattern == oracle.bitPattern, "\(text): \(value) != \(oracle)")
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func readsBackEveryFiniteDoubleBitExactly(seed: UInt64) throws {
    print("JSONParserTests.readsBackEveryFiniteDoubleBitExactly seed \(seed)")
    var random = SeededRandom(seed: seed)
    var checked = 0
    while checked < 10_000 {
      let value = Double(bitPattern: random.next())
      guard value.isFinite else { continue }
      checked += 1
      let parsed = try JSONParser.parse(value.description)
      #expect(parsed == .double(value), "\(value)")
      if case .double(let back) = parsed {
        #expect(back.bitPattern == value.bitPattern, "\(value)")
      }
    }
  }

  @Test func rejectsNumbersBeyondTheRangeOfDouble() {
    for text in ["1e309", "-1e309", "1.8e308", "[0, 123123e100000]", "1e99999999999999999999"] {
      #expect(throws: JSONError.self, "\(text)") { try JSONParser.parse(text) }
    }
    #expect(throws: JSONError(offset: 4, reason: "Number is out of the range of Double")) {
      try JSONParser.parse("[0, -2e308]")
    }
  }

  @Test func decodesEscapes() throws {
    let text = #""\"\\\/\b\f\n\r\t\u0000\u001F\u00e9\u20AC\ud83d\ude00 plain""#
    let expected = "\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1F}é€😀 plain"
    #expect(try JSONParser.parse(text) == .string(expected))
  }

  @Test func keepsRawUTF8AsItIs() throws {
    let expected = "e\u{301} é 👩‍👩‍👧 🇸🇪 中文 \u{2028} \u{FFFF} \u{10FFFF} \u{7F}"
    guard case .string(let parsed) = try JSONParser.parse("\"\(expected)\"") else {
      Issue.record("not a string")
      return
    }
    #expect(Array(parsed.utf8) == Array(expected.utf8))
  }

  @Test func readsLongStringsAcrossWordBoundaries() throws {
    let specials: [(json: String, decoded: String)] = [
      ("", ""), (#"\n"#, "\n"), ("é", "é"), (#"\u00e9"#, "é"), ("😀", "😀"),
    ]
    for length in 0..<40 {
      for special in specials {
        let prefix = String(repeating: "a", count: length)
        let suffix = String(repeating: "b", count: 9)
        let parsed = try JSONParser.parse("\"" + prefix + special.json + suffix + "\"")
        #expect(parsed == .string(prefix + special.decoded + suffix), "\(length) \(special)")
      }
    }
  }

  @Test func keepsObjectKeysInOrderWithDuplicates() throws {
    guard case .object(let object) = try JSONParser.parse(#"{"b":1,"a":2,"b":3}"#) else {
      Issue.record("not an object")
      return
    }
    #expect(object.keys == ["b", "a", "b"])
    #expect(object["b"] == .integer(1))
    #expect(object.count == 3)
    #expect(JSONWriter.string(.object(object)) == #"{"b":1,"a":2,"b":3}"#)
  }

  @Test func acceptsNestingUpToTheLimit() throws {
    let arrays = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(throws: Never.self) { try JSONParser.parse(arrays) }
    let objects =
      String(repeating: #"{"a":"#, count: 511) + "[1]" + String(repeating: "}", count: 511)
    #expect(throws: Never.self) { try JSONParser.parse(objects) }
  }

  @Test func rejectsNestingBeyondTheLimitWithoutRecursing() {
    let limitError = JSONError(offset: 512, reason: "Nesting deeper than 512 levels")
    let arrays = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
    #expect(throws: limitError) { try JSONParser.parse(arrays) }
    #expect(throws: limitError) { try JSONParser.parse(String(repeating: "[", count: 100_000)) }
    let objects = String(repeating: "{\"\":", count: 100_000)
    #expect(throws: JSONError(offset: 512 * 4, reason: "Nesting deeper than 512 levels")) {
      try JSONParser.parse(objects)
    }
  }

  @Test(
    arguments: [
      ("", 0, "Unexpected end of input"),
      ("   ", 3, "Unexpected end of input"),
      ("[1,]", 3, "Expected a value but found ']'"),
      ("[1 2]", 3, "Expected ',' or ']' after an array element"),
      (#"{"a":1,}"#, 7, "Expected a string key in an object"),
      (#"{"a" 1}"#, 5, "Expected ':' after an object key"),
      (#"{"a":1 "b":2}"#, 7, "Expected ',' or '}' after an object member"),
      ("{'a':1}", 1, "Expected a string key in an object"),
      ("[1] x", 4, "Unexpected data after the JSON value"),
      ("[1]]", 3, "Unexpected data after the JSON value"),
      ("tru", 3, "Unexpected end of input"),
      ("trUe", 2, "Invalid literal, expected 'true'"),
      ("[nul]", 4, "Invalid literal, expected 'null'"),
      ("fals", 4, "Unexpected end of input"),
      ("falsy", 4, "Invalid literal, expected 'false'"),
      ("NaN", 0, "Expected a value but found 'N'"),
      ("[012]", 2, "Leading zeros are not allowed in numbers"),
      ("-", 1, "Unexpected end of input"),
      ("[-x]", 2, "Expected a digit after '-'"),
      ("[1.]", 3, "Expected a digit after the decimal point"),
      ("[1.e5]", 3, "Expected a digit after the decimal point"),
      ("[1e]", 3, "Expected a digit in the exponent"),
      ("[1e+]", 4, "Expected a digit in the exponent"),
      ("[.5]", 1, "Expected a value but found '.'"),
      ("[+1]", 1, "Expected a value but found '+'"),
      ("[1.5e999]", 1, "Number is out of the range of Double"),
      (#"["abc"#, 5, "Unexpected end of input"),
      ("[\"a\nb\"]", 3, "Unescaped control character U+000A in a string"),
      ("[\"a\u{0}\"]", 3, "Unescaped control character U+0000 in a string"),
      (#"["a\x"]"#, 4, #"Invalid escape character 'x' after '\'"#),
      (#"["\u12G4"]"#, 6, #"Expected four hex digits after '\u'"#),
      (#"["\u12"]"#, 6, #"Expected four hex digits after '\u'"#),
      (#"["ab\ud800"]"#, 4, "High surrogate escape is not followed by a low surrogate escape"),
      (#"["\ud800\u0041"]"#, 2, "High surrogate escape is not followed by a low surrogate escape"),
      (#"["\udc00\ud800"]"#, 2, "Low surrogate escape without a preceding high surrogate"),
      ("\u{FEFF}{}", 0, "A byte order mark is not allowed"),
      ("[1]\u{0C}", 3, "Unexpected data after the JSON value"),
      ("\u{A0}1", 0, "Expected a value but found byte 0xC2"),
    ] as [(String, Int, String)])
  func reportsWhereAndWhyTextIsRejected(text: String, offset: Int, reason: String) {
    #expect(throws: JSONError(offset: offset, reason: reason)) { try JSONParser.parse(text) }
  }

  @Test(
    arguments: [
      ([0x22, 0xFF, 0x22], 1, "Invalid UTF-8 byte 0xFF"),
      ([0x22, 0x80, 0x22], 1, "Invalid UTF-8 byte 0x80"),
      ([0x22, 0xC0, 0xAF, 0x22], 1, "Invalid UTF-8 byte 0xC0"),
      ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1, "Invalid UTF-8 sequence starting with byte 0xE0"),
      ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, "Invalid UTF-8 sequence starting with byte 0xED"),
      ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, "Invalid UTF-8 sequence starting with byte 0xF4"),
      ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "Invalid UTF-8 byte 0xF5"),
      ([0x22, 0xE2, 0x82, 0x22], 1, "Invalid UTF-8 sequence starting with byte 0xE2"),
      ([0x22, 0xF0, 0x9F, 0x98], 4, "Unexpected end of input"),
      ([0x22, 0x61, 0x5C, 0x6E, 0xFE, 0x22], 4, "Invalid UTF-8 byte 0xFE"),
      ([0x5B, 0xC3, 0xA9, 0x5D], 1, "Expected a value but found byte 0xC3"),
    ] as [([UInt8], Int, String)])
  func rejectsInvalidUTF8AtTheOffendingByte(bytes: [UInt8], offset: Int, reason: String) {
    #expect(throws: JSONError(offset: offset, reason: reason)) { try JSONParser.parse(bytes) }
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func reportsTheEndOfInputForEveryTruncatedDocument(seed: UInt64) throws {
    print("JSONParserTests.reportsTheEndOfInputForEveryTruncatedDocument seed \(seed)")
    var generator = RandomJSON(seed: seed)
    for _ in 0..<40 {
      let bytes = JSONWriter.bytes(.array([generator.value(), generator.value()]))
      for length in 0..<bytes.count {
        #expect(throws: JSONError(offset: length, reason: "Unexpected end of input")) {
          try JSONParser.parse(Array(bytes[..<length]))
        }
      }
    }
  }

  /// Bytes that are likely to turn one valid text into another, or into a subtly invalid one.
  static let structural = Array(#"{}[]",:"\u0-.e"#.utf8)

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func survivesMutatedInput(seed: UInt64) throws {
    print("JSONParserTests.survivesMutatedInput seed \(seed)")
    var generator = RandomJSON(seed: seed)
    var random = SeededRandom(seed: seed &+ 1)
    for _ in 0..<2_000 {
      var bytes = JSONWriter.bytes(.array([generator.value(), generator.value()]))
      for _ in 0...(random.next() % 3) {
        let position = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 4 {
        case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
        case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        case 2: bytes.remove(at: position)
        default:
          bytes[position] = Self.structural[Int(random.next() % UInt64(Self.structural.count))]
        }
        if bytes.isEmpty { bytes = [0x20] }
      }
      do {
        let value = try JSONParser.parse(bytes)
        #expect(isIdentical(try JSONParser.parse(JSONWriter.bytes(value)), value))
      } catch {
        #expect(error.offset >= 0 && error.offset <= bytes.count)
      }
    }
  }

  @Test func describesErrorsWithTheirOffset() {
    let error = JSONError(offset: 7, reason: "Expected ':' after an object key")
    #expect(error.description == "Expected ':' after an object key (at byte 7)")
  }
}
