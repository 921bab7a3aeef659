import Testing

@testable import ArgumentParsing

@Suite struct SubcommandTests {
  @Test func followsSubcommandNamesIntoThePath() throws {
    let parsed = try command(words("location add shop --latitude 52.37"))
    #expect(parsed.path == ["location", "add"])
    #expect(parsed.positional("NAME") == "shop")
    #expect(parsed.decimal("latitude") == 52.37)
  }

  @Test func suggestsTheClosestSubcommandForAnUnknownOne() throws {
    let error = try #require(failure(words("location lst")))
    #expect(error.kind == .unknownCommand)
    #expect(error.suggestion == "list")
    #expect(error.message == "Unknown command 'lst' for 'stash location'; did you mean 'list'?")
    #expect(error.path == ["location"])
    #expect(error.helpHint == "See 'stash location --help'")
  }

  @Test func namesAnUnknownCommandWithoutASuggestionWhenNoneIsClose() throws {
    let error = try #require(failure(["frobnicate"]))
    #expect(error.kind == .unknownCommand)
    #expect(error.suggestion == nil)
    #expect(error.message == "Unknown command 'frobnicate' for 'stash'")
  }

  /// Found by the fuzz tests: a 100,000-character token took over 5 s in a debug build,
  /// being compared letter by letter with every name. Now a token whose length alone puts it
  /// out of reach is skipped; near misses are still suggested.
  @Test(arguments: [100_000, 9])
  func aTokenFarLongerThanEveryNameGetsNoSuggestion(repeats: Int) throws {
    let error = try #require(failure(["location", String(repeating: "lis", count: repeats)]))
    #expect(error.kind == .unknownCommand)
    #expect(error.suggestion == nil)
    #expect(try #require(failure(words("location lisst"))).suggestion == "list")
  }

  @Test(arguments: [
    "--home /h --json location list",
    "location --home /h list --json",
    "location list --json --home /h",
    "--json location list --home=/h",
  ])
  func acceptsGlobalOptionsBeforeAndAfterASubcommand(line: String) throws {
    let parsed = try command(words(line))
    #expect(parsed.path == ["location", "list"])
    #expect(parsed.string("home") == "/h")
    #expect(parsed.flag("json"))
  }

  @Test func refusesAGlobalOptionGivenOnceBeforeAndOnceAfterASubcommand() throws {
    let error = try #require(failure(words("--home /a sync status --home /b")))
    #expect(error.kind == .repeatedOption)
    #expect(error.path == ["sync", "status"])
  }

  @Test func refusesAnOptionOfTheParentAfterDescending() throws {
    let root = CommandSpec(
      "tool", abstract: "A tool",
      subcommands: [
        CommandSpec(
          "group", abstract: "A group",
          options: [OptionSpec("local", help: "Only for the group")],
          subcommands: [CommandSpec("leaf", abstract: "A leaf", examples: ["tool group leaf"])],
          examples: ["tool group"])
      ],
      requiresSubcommand: true, examples: ["tool group"])
    let parsed = try command(words("group --local x"), in: root)
    #expect(parsed.string("local") == "x")
    let error = try #require(failure(words("group --local x leaf"), in: root))
    #expect(error.kind == .unknownOption)
    #expect(error.message.hasPrefix("Option '--local' does not apply to 'tool group leaf'"))
  }

  @Test func reportsAMissingSubcommandForACommandThatNeedsOne() throws {
    let error = try #require(failure(["location"]))
    #expect(error.kind == .missingSubcommand)
    #expect(error.path == ["location"])
    #expect(error.message == "Missing subcommand for 'stash location'; use one of 'add', 'list'")
    let root = try #require(failure([]))
    #expect(root.kind == .missingSubcommand)
    #expect(root.path.isEmpty)
  }

  @Test func runsACommandThatHasSubcommandsByItself() throws {
    let parsed = try command(words("sync --json"))
    #expect(parsed.path == ["sync"])
    #expect(parsed.flag("json"))
    #expect(try command(words("sync status")).path == ["sync", "status"])
  }

  @Test func requiresTheOptionsOfTheSubcommandReached() throws {
    let error = try #require(failure(words("sync enable")))
    #expect(error.kind == .missingOption)
    #expect(error.message == "Missing option '--cloud' for 'stash sync enable'; add '--cloud DIR'")
    #expect(try command(words("sync enable --cloud /c")).string("cloud") == "/c")
  }
}

@Suite struct SuggestionTests {
  @Test(
    arguments: [
      ("lst", "list"), ("lsit", "list"), ("locaton", "location"), ("syn", "sync"),
      ("loc", "location"),
      ("xyz", nil), ("a", nil), ("status", nil),
    ] as [(String, String?)])
  func suggestsACloseSubcommandByEditDistanceOrPrefix(typed: String, expected: String?) throws {
    let root = CommandSpec(
      "tool", abstract: "A tool",
      subcommands: ["list", "location", "sync", "add"].map {
        CommandSpec($0, abstract: "Do \($0)", examples: ["tool \($0)"])
      },
      requiresSubcommand: true, examples: ["tool list"])
    let error = try #require(failure([typed], in: root))
    #expect(error.kind == .unknownCommand)
    #expect(error.suggestion == expected)
  }
}
