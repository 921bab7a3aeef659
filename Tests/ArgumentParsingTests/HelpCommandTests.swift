import Testing

@testable import ArgumentParsing

/// `stash help sync status` is `stash sync status --help`, as `git help commit` is
/// `git commit --help` (issue 24, item 6).
@Suite struct HelpCommandTests {
  @Test(arguments: [
    ("help", ""), ("help sync", "sync"), ("help sync status", "sync status"),
    ("help consume", "consume"), ("help location add", "location add"),
    ("--home /h help sync", "sync"), ("help sync status --json", "sync status"),
    ("help --help", ""),
  ])
  func helpNamesACommandAndPrintsWhatItsHelpFlagPrints(line: String, path: String) throws {
    let asked = helpText(words(line))
    let flagged = helpText(words(path) + ["--help"])
    #expect(asked != nil && asked == flagged, "\(line)")
  }

  @Test func helpOfAnUnknownCommandIsAUsageErrorWithASuggestion() throws {
    let error = try #require(failure(words("help synx")))
    #expect(error.kind == .unknownCommand)
    #expect(error.suggestion == "sync")
    #expect(error.message == "Unknown command 'synx' for 'stash'; did you mean 'sync'?")
    #expect(error.helpHint == "See 'stash --help'")
    let deeper = try #require(failure(words("help sync stauts")))
    #expect(deeper.suggestion == "status")
    #expect(deeper.helpHint == "See 'stash sync --help'")
  }

  @Test func helpOfALeafCommandWithMoreNamesIsRefused() throws {
    let error = try #require(failure(words("help consume soap")))
    #expect(error.kind == .unknownCommand)
    #expect(error.path == ["consume"])
  }

  @Test func aToolWithItsOwnHelpCommandKeepsIt() throws {
    let root = CommandSpec(
      "t", abstract: "T", subcommands: [CommandSpec("help", abstract: "Its own help")],
      requiresSubcommand: true)
    let parsed = try command(["help"], in: root)
    #expect(parsed.path == ["help"])
  }
}
