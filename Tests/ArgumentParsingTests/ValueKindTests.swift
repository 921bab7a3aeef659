import Testing

@testable import ArgumentParsing

@Suite struct ValueKindTests {
  @Test(
    arguments: [
      ("0", 0),
      ("5", 5),
      ("-3", -3),
      ("-0", 0),
      ("007", 7),
      ("9223372036854775807", Int64.max),
      ("-9223372036854775808", Int64.min),
    ] as [(String, Int64)])
  func acceptsWholeNumbersWithinInt64(text: String, expected: Int64) throws {
    let parsed = try command(["kinds", "--int", text])
    #expect(parsed.integer("int") == expected)
    #expect(parsed.string("int") == text)
  }

  @Test(arguments: ["abc", "", "+5", "1.0", "1e3", " 5", "5 ", "0x10", "1_000", "-", "--5", "٣"])
  func refusesTextThatIsNotAWholeNumber(text: String) throws {
    let error = try #require(failure(["kinds", "--int", text]))
    #expect(error.kind == .invalidValue)
    #expect(error.message.hasSuffix("for '--int'; it takes a whole number, e.g. '--int 5'"))
  }

  @Test(arguments: [
    ("9223372036854775808", "large"),
    ("99999999999999999999", "large"),
    ("-9223372036854775809", "small"),
  ])
  func refusesWholeNumbersBeyondInt64AsOutOfRange(text: String, size: String) throws {
    let error = try #require(failure(["kinds", "--int", text]))
    #expect(error.kind == .valueOutOfRange)
    #expect(
      error.message
        == "Value '\(text)' for '--int' is too \(size); use a whole number from "
        + "-9223372036854775808 to 9223372036854775807")
  }

  @Test(
    arguments: [
      ("1.5", 1.5),
      ("0", 0),
      ("12", 12),
      ("-0.5", -0.5),
      ("52.3702", 52.3702),
      ("007.25", 7.25),
    ] as [(String, Double)])
  func acceptsPlainDecimalNumbers(text: String, expected: Double) throws {
    let parsed = try command(["kinds", "--dec", text])
    #expect(parsed.decimal("dec") == expected)
    #expect(parsed.string("dec") == text)
  }

  @Test func keepsTheSignOfNegativeZero() throws {
    let value = try #require(try command(["kinds", "--dec", "-0.0"]).decimal("dec"))
    #expect(value == 0)
    #expect(value.sign == .minus)
  }

  @Test(arguments: [
    "nan", "NaN", "inf", "-inf", "infinity", "1e3", "1e999", "1E3", "+1.5", ".5", "5.", "1.2.3",
    "1,5", "", "-", "0x1p3", " 1", "1.5 ", "abc",
  ])
  func refusesTextThatIsNotAPlainFiniteDecimal(text: String) throws {
    let error = try #require(failure(["kinds", "--dec", text]))
    #expect(error.kind == .invalidValue)
    #expect(error.message.hasSuffix("for '--dec'; it takes a decimal number, e.g. '--dec 1.5'"))
  }

  @Test(arguments: [
    ("1" + String(repeating: "0", count: 400), "large"),
    ("-9" + String(repeating: "9", count: 400), "small"),
  ])
  func refusesDecimalsTooLargeToBeFinite(text: String, size: String) throws {
    let error = try #require(failure(["kinds", "--dec", text]))
    #expect(error.kind == .valueOutOfRange)
    #expect(error.message.contains("is too \(size); use a decimal number closer to zero"))
  }

  @Test(arguments: ["fast", "slow"])
  func acceptsAListedChoice(choice: String) throws {
    #expect(try command(["kinds", "--mode", choice]).string("mode") == choice)
  }

  @Test(arguments: [
    ("fats", "Invalid value 'fats' for '--mode'; did you mean 'fast'?"),
    (
      "FAST",
      "Invalid value 'FAST' for '--mode'; it takes one of 'fast', 'slow', e.g. '--mode fast'"
    ),
    (
      "medium",
      "Invalid value 'medium' for '--mode'; it takes one of 'fast', 'slow', e.g. '--mode fast'"
    ),
  ])
  func refusesAnUnlistedChoice(text: String, message: String) throws {
    let error = try #require(failure(["kinds", "--mode", text]))
    #expect(error.kind == .invalidValue)
    #expect(error.message == message)
  }

  @Test(arguments: ["a.txt", "/tmp/x y", "-", "~/photos/p.jpg"])
  func keepsPathsAsWritten(path: String) throws {
    #expect(try command(["kinds", "--file", path]).string("file") == path)
  }

  @Test func refusesAnEmptyPath() throws {
    let error = try #require(failure(["kinds", "--file="]))
    #expect(error.kind == .invalidValue)
    #expect(error.message == "Empty value for '--file'; it takes a path, e.g. '--file PATH'")
  }

  @Test(arguments: ["", "text with spaces", "-3", "ünïcödé"])
  func keepsAnyTextAsWritten(text: String) throws {
    #expect(try command(["kinds", "--text", text]).string("text") == text)
  }
}
