import Testing

@testable import ArgumentParsing

@Suite struct PositionalTests {
  @Test func matchesArgumentsInOrderAndConvertsThemByKind() throws {
    let parsed = try command(words("consume 3f2b 2"))
    #expect(parsed.path == ["consume"])
    #expect(parsed.positional("ITEM") == "3f2b")
    #expect(parsed.integer("N") == 2)
    #expect(parsed.positional("N") == "2")
  }

  @Test func leavesAnOptionalArgumentOut() throws {
    let parsed = try command(["consume", "Koleston 7/1"])
    #expect(parsed.positional("ITEM") == "Koleston 7/1")
    #expect(!parsed.has("N"))
    #expect(parsed.integer("N") == nil)
  }

  @Test(arguments: ["-3", "-0"])
  func takesANegativeNumberAsAPositionalValue(number: String) throws {
    let parsed = try command(["consume", "3f2b", number])
    #expect(parsed.integer("N") == Int64(number))
  }

  @Test func takesALoneDashAsAPositionalValue() throws {
    let parsed = try command(["import", "-"])
    #expect(parsed.positional("FILE") == "-")
  }

  @Test func refusesAMissingRequiredArgumentShowingTheUsage() throws {
    let error = try #require(failure(["consume"]))
    #expect(error.kind == .missingArgument)
    #expect(
      error.message
        == "Missing argument '<ITEM>' for 'stash consume'; usage: 'stash consume <ITEM> [<N>]'")
  }

  @Test func refusesTooManyArguments() throws {
    let error = try #require(failure(words("consume 3f2b 2 3")))
    #expect(error.kind == .unexpectedArgument)
    #expect(
      error.message
        == "Unexpected argument '3' for 'stash consume'; usage: 'stash consume <ITEM> [<N>]'")
  }

  @Test func refusesAnArgumentForACommandThatTakesNone() throws {
    let error = try #require(failure(words("location list extra")))
    #expect(error.kind == .unexpectedArgument)
    #expect(
      error.message
        == "Unexpected argument 'extra' for 'stash location list'; it takes no arguments")
  }

  @Test func refusesAPositionalValueOfTheWrongKind() throws {
    let error = try #require(failure(words("consume 3f2b two")))
    #expect(error.kind == .invalidValue)
    #expect(error.message == "Invalid value 'two' for '<N>'; it takes a whole number, e.g. '5'")
  }

  @Test func givesEveryRemainingValueToAVariadicArgument() throws {
    let parsed = try command(words("kinds a.txt --verbose b.txt c.txt"))
    #expect(parsed.strings("FILES") == ["a.txt", "b.txt", "c.txt"])
    #expect(parsed.positional("FILES") == "c.txt")
    let none = try command(["kinds"])
    #expect(none.strings("FILES").isEmpty)
  }

  @Test func checksEveryValueOfAVariadicArgument() throws {
    let error = try #require(failure(["kinds", "a.txt", ""]))
    #expect(error.kind == .invalidValue)
    #expect(error.message == "Empty value for '<FILES>'; it takes a path")
  }
}
