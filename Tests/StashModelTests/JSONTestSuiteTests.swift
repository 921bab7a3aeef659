import StashBase
import StashModel
import StashTestSupport
import Testing

/// Every file of nst/JSONTestSuite's `test_parsing` folder (copied to `Fixtures/JSONTestSuite`):
/// `y_` files must be accepted, `n_` files rejected, and `i_` files behave as pinned below.
@Suite struct JSONTestSuiteTests {
  static let folder = "JSONTestSuite/test_parsing"
  static let files = Fixtures.entries(folder)

  /// What the parser does with an implementation-defined (`i_`) file.
  enum Outcome: Sendable, CustomStringConvertible {
    case accepts(JSONValue)
    case rejects(offset: Int, reason: String)

    var description: String {
      switch self {
      case .accepts(let value): "accepts \(JSONWriter.string(value))"
      case .rejects(let offset, let reason): "rejects at \(offset): \(reason)"
      }
    }
  }

  static let outOfRange = "Number is out of the range of Double"
  static let unpairedHigh = "High surrogate escape is not followed by a low surrogate escape"
  static let loneLow = "Low surrogate escape without a preceding high surrogate"

  /// The behaviour chosen for every `i_` file: numbers that underflow read as zero, integers
  /// beyond `Int64` read as doubles, numbers beyond `Double`'s range are rejected, and so are
  /// lone surrogates, invalid UTF-8, UTF-16 and byte order marks. 500 levels of nesting are
  /// within the 512-level limit.
  static let implementationDefined: [String: Outcome] = [
    "i_number_double_huge_neg_exp.json": .accepts(.array([.double(0)])),
    "i_number_huge_exp.json": .rejects(offset: 1, reason: outOfRange),
    "i_number_neg_int_huge_exp.json": .rejects(offset: 1, reason: outOfRange),
    "i_number_pos_double_huge_exp.json": .rejects(offset: 1, reason: outOfRange),
    "i_number_real_neg_overflow.json": .rejects(offset: 1, reason: outOfRange),
    "i_number_real_pos_overflow.json": .rejects(offset: 1, reason: outOfRange),
    "i_number_real_underflow.json": .accepts(.array([.double(0)])),
    "i_number_too_big_neg_int.json": .accepts(
      .array([.double(Double("-123123123123123123123123123123")!)])),
    "i_number_too_big_pos_int.json": .accepts(.array([.double(1e20)])),
    "i_number_very_big_negative_int.json": .accepts(
      .array([.double(Double("-237462374673276894279832749832423479823246327846")!)])),
    "i_object_key_lone_2nd_surrogate.json": .rejects(offset: 2, reason: loneLow),
    "i_string_1st_surrogate_but_2nd_missing.json": .rejects(offset: 2, reason: unpairedHigh),
    "i_string_1st_valid_surrogate_2nd_invalid.json": .rejects(offset: 2, reason: unpairedHigh),
    "i_string_UTF-16LE_with_BOM.json": .rejects(
      offset: 0, reason: "Expected a value but found byte 0xFF"),
    "i_string_UTF-8_invalid_sequence.json": .rejects(offset: 7, reason: "Invalid UTF-8 byte 0xFA"),
    "i_string_UTF8_surrogate_U+D800.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 sequence starting with byte 0xED"),
    "i_string_incomplete_surrogate_and_escape_valid.json": .rejects(
      offset: 2, reason: unpairedHigh),
    "i_string_incomplete_surrogate_pair.json": .rejects(offset: 2, reason: loneLow),
    "i_string_incomplete_surrogates_escape_valid.json": .rejects(offset: 2, reason: unpairedHigh),
    "i_string_invalid_lonely_surrogate.json": .rejects(offset: 2, reason: unpairedHigh),
    "i_string_invalid_surrogate.json": .rejects(offset: 2, reason: unpairedHigh),
    "i_string_invalid_utf-8.json": .rejects(offset: 2, reason: "Invalid UTF-8 byte 0xFF"),
    "i_string_inverted_surrogates_U+1D11E.json": .rejects(offset: 2, reason: loneLow),
    "i_string_iso_latin_1.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 sequence starting with byte 0xE9"),
    "i_string_lone_second_surrogate.json": .rejects(offset: 2, reason: loneLow),
    "i_string_lone_utf8_continuation_byte.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 byte 0x81"),
    "i_string_not_in_unicode_range.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 sequence starting with byte 0xF4"),
    "i_string_overlong_sequence_2_bytes.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 byte 0xC0"),
    "i_string_overlong_sequence_6_bytes.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 byte 0xFC"),
    "i_string_overlong_sequence_6_bytes_null.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 byte 0xFC"),
    "i_string_truncated-utf-8.json": .rejects(
      offset: 2, reason: "Invalid UTF-8 sequence starting with byte 0xE0"),
    "i_string_utf16BE_no_BOM.json": .rejects(
      offset: 0, reason: "Expected a value but found byte 0x00"),
    "i_string_utf16LE_no_BOM.json": .rejects(
      offset: 1, reason: "Expected a value but found byte 0x00"),
    "i_structure_500_nested_arrays.json": .accepts(nestedArrays(500)),
    "i_structure_UTF-8_BOM_empty_object.json": .rejects(
      offset: 0, reason: "A byte order mark is not allowed"),
  ]

  static func nestedArrays(_ depth: Int) -> JSONValue {
    var value = JSONValue.array([])
    for _ in 1..<depth {
      value = .array([value])
    }
    return value
  }

  @Test func theFixturesAreAllThere() {
    #expect(Self.files.count == 318)
    #expect(Self.files.filter { $0.hasPrefix("y_") }.count == 95)
    #expect(Self.files.filter { $0.hasPrefix("n_") }.count == 188)
    #expect(Set(Self.files.filter { $0.hasPrefix("i_") }) == Set(Self.implementationDefined.keys))
  }

  @Test(arguments: files.filter { $0.hasPrefix("y_") })
  func acceptsEveryValidText(file: String) throws {
    let bytes = try Fixtures.bytes("\(Self.folder)/\(file)")
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      Issue.record("\(file) was rejected: \(error)")
      return
    }
    // What was read must survive being written and read again, bit for bit.
    let rewritten = try JSONParser.parse(JSONWriter.bytes(value))
    #expect(isIdentical(rewritten, value))
  }

  @Test(arguments: files.filter { $0.hasPrefix("n_") })
  func rejectsEveryInvalidText(file: String) throws {
    let bytes = try Fixtures.bytes("\(Self.folder)/\(file)")
    do {
      let value = try JSONParser.parse(bytes)
      Issue.record("\(file) was accepted as \(JSONWriter.string(value))")
    } catch {
      #expect(error.offset >= 0 && error.offset <= bytes.count)
      #expect(!error.reason.isEmpty && !error.reason.hasSuffix("."))
    }
  }

  @Test(arguments: files.filter { $0.hasPrefix("i_") })
  func handlesImplementationDefinedTextsAsPinned(file: String) throws {
    let bytes = try Fixtures.bytes("\(Self.folder)/\(file)")
    let expected = try #require(Self.implementationDefined[file], "\(file) has no pinned outcome")
    switch expected {
    case .accepts(let value):
      let parsed = try JSONParser.parse(bytes)
      #expect(isIdentical(parsed, value), "\(file)")
    case .rejects(let offset, let reason):
      #expect(throws: JSONError(offset: offset, reason: reason), "\(file)") {
        try JSONParser.parse(bytes)
      }
    }
  }
}
