import Testing

@testable import ArgumentParsing

@Suite struct OptionParsingTests {
  @Test func readsFlagsAsPresentOrAbsent() throws {
    let given = try command(words("kinds --verbose"))
    #expect(given.flag("verbose"))
    #expect(given.has("verbose"))
    let absent = try command(words("kinds"))
    #expect(!absent.flag("verbose"))
    #expect(!absent.has("int"))
    #expect(absent.integer("int") == nil)
  }

  @Test func takesTheValueFromTheNextArgumentOrAfterAnEqualsSign() throws {
    let spaced = try command(words("add Soap --quantity 5 --unit bar"))
    #expect(spaced.integer("quantity") == 5)
    #expect(spaced.string("unit") == "bar")
    let joined = try command(words("add Soap --quantity=5 --unit=bar"))
    #expect(joined == spaced)
  }

  @Test func splitsOnlyAtTheFirstEqualsSign() throws {
    let parsed = try command(words("add Soap --notes=a=b"))
    #expect(parsed.string("notes") == "a=b")
  }

  @Test func acceptsAnEmptyTextValue() throws {
    let parsed = try command(["add", "Soap", "--notes="])
    #expect(parsed.has("notes"))
    #expect(parsed.string("notes") == "")
  }

  @Test(arguments: [
    (["add", "Soap", "--quantity", "-3"], "quantity", "-3"),
    (["add", "Soap", "--quantity=-3"], "quantity", "-3"),
    (["add", "Soap", "--notes", "--quantity"], "notes", "--quantity"),
    (["add", "Soap", "--notes", "-"], "notes", "-"),
    (["add", "Soap", "--notes", "--"], "notes", "--"),
  ])
  func takesAValueStartingWithADashAsTheValue(
    arguments: [String],
    option: String,
    expected: String
  ) throws {
    let parsed = try command(arguments)
    #expect(parsed.string(option) == expected)
    #expect(parsed.positional("NAME") == "Soap")
  }

  @Test func keepsANegativeQuantityForTheCommandToRefuse() throws {
    let parsed = try command(words("add Soap --quantity -3"))
    #expect(parsed.integer("quantity") == -3)
  }

  @Test func endsOptionsAtDoubleDash() throws {
    let parsed = try command(["add", "--quantity", "2", "--", "--json"])
    #expect(parsed.positional("NAME") == "--json")
    #expect(!parsed.flag("json"))
    #expect(parsed.integer("quantity") == 2)
  }

  @Test func treatsHelpAfterDoubleDashAsAValue() throws {
    let parsed = try command(["add", "--", "-h"])
    #expect(parsed.positional("NAME") == "-h")
  }

  @Test func reportsAMissingValueWithAnExample() throws {
    let error = try #require(failure(words("add Soap --quantity")))
    #expect(error.kind == .missingValue)
    #expect(
      error.message
        == "Missing value for '--quantity'; it takes a whole number, e.g. '--quantity 5'")
    #expect(error.path == ["add"])
    #expect(error.helpHint == "See 'stash add --help'")
  }

  @Test func refusesAValueForAFlag() throws {
    let error = try #require(failure(words("kinds --verbose=x")))
    #expect(error.kind == .flagGivenValue)
    #expect(error.message == "Flag '--verbose' takes no value; write '--verbose' without '=x'")
  }

  @Test func suggestsTheClosestOptionForAnUnknownOne() throws {
    let error = try #require(failure(words("add Soap --quantty 5")))
    #expect(error.kind == .unknownOption)
    #expect(error.suggestion == "--quantity")
    #expect(
      error.message == "Unknown option '--quantty' for 'stash add'; did you mean '--quantity'?")
  }

  @Test(
    arguments: [
      ("add Soap --quan 3", "--quantity"),
      ("add Soap -quantity 3", "--quantity"),
      ("add Soap --jsn", "--json"),
      ("add Soap --hlep", "--help"),
      ("--verison", "--version"),
      ("add Soap --zzz", nil),
      ("add Soap -x", nil),
    ] as [(String, String?)])
  func suggestsOnlyCloseOptionNames(line: String, suggestion: String?) throws {
    let error = try #require(failure(words(line)))
    #expect(error.kind == .unknownOption)
    #expect(error.suggestion == suggestion)
  }

  @Test func refusesARepeatedOptionNamingIt() throws {
    let error = try #require(failure(words("add Soap --quantity 1 --quantity=2")))
    #expect(error.kind == .repeatedOption)
    #expect(error.message == "Option '--quantity' was given more than once; give it once")
  }

  @Test func collectsEveryValueOfARepeatableOption() throws {
    let parsed = try command(words("kinds --tag a --tag=b --tag c"))
    #expect(parsed.strings("tag") == ["a", "b", "c"])
    #expect(parsed.string("tag") == "c")
  }

  @Test(arguments: [
    ("edit 3f2b --photo p.jpg --no-photo", "'--photo' and '--no-photo'"),
    ("edit 3f2b --no-photo --photo p.jpg", "'--no-photo' and '--photo'"),
    ("edit 3f2b --no-location --location shop", "'--no-location' and '--location'"),
  ])
  func refusesTwoOptionsFromAnExclusiveGroupNamingBoth(line: String, named: String) throws {
    let error = try #require(failure(words(line)))
    #expect(error.kind == .exclusiveOptions)
    #expect(error.message == "Options \(named) cannot be used together; keep one of them")
  }

  @Test func acceptsOneOptionFromEachExclusiveGroup() throws {
    let parsed = try command(words("edit 3f2b --no-photo --location shop"))
    #expect(parsed.flag("no-photo"))
    #expect(parsed.string("location") == "shop")
  }

  @Test func refusesAMissingRequiredOption() throws {
    let error = try #require(failure(words("reminder --trigger leave")))
    #expect(error.kind == .missingOption)
    #expect(
      error.message == "Missing option '--message' for 'stash reminder'; add '--message TEXT'")
  }

  @Test func reportsTheVersionOnlyAtTheRoot() throws {
    #expect(try outcome(["--version"]) == .version)
    #expect(try outcome(["--home", "/tmp", "--version"]) == .version)
    let error = try #require(failure(words("add Soap --version")))
    #expect(error.kind == .unknownOption)
    #expect(
      error.message == "Option '--version' only works on 'stash' itself; use 'stash --version'")
  }

  @Test func refusesVersionWhenTheRootDeclaresNone() throws {
    let root = CommandSpec("tool", abstract: "A tool", examples: ["tool"])
    let error = try #require(failure(["--version"], in: root))
    #expect(error.kind == .unknownOption)
  }
}
