import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// What reaches a terminal: control characters, C1 controls and bidi controls typed by a person
/// are shown escaped, never acted on; a group without its subcommand ends with the help hint.
@Suite struct TerminalTests {
  static let now = Bytes("1764441600")

  // MARK: - What is echoed to the terminal

  @Test(arguments: [
    "\u{1B}]0;pwned\u{07}\u{1B}[2J", "a\u{9B}31mred", "\u{202E}gnp.exe", "cr\rover", "nul\u{7F}",
    "bell\u{07}", "line\u{2028}separator", "\u{2066}isolate\u{2069}",
  ])
  func controlCharactersInAnEchoedArgumentAreShownEscaped(text: String) throws {
    try withRawCLI { cli in
      let run = try cli.run(
        ["show", Bytes(text)],
        environment: ["STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.hasPrefix("No item named '"), "\(run)")
      #expect(Terminal.unsafeScalars(in: run.standardError).isEmpty, "\(run)")
      #expect(run.standardError.contains("\\u{"), "\(run)")
    }
  }

  @Test func aHomeWithAnEscapeSequenceIsShownEscapedOnStandardOutputToo() throws {
    try withRawCLI { cli in
      let home = Bytes(cli.sandbox + "/h\u{1B}[2Jome")
      let run = try cli.run(
        ["--home", home, "init", "--name", "kitchen"], environment: ["STASH_NOW": Self.now])
      #expect(run.status == 0, "\(run)")
      #expect(Terminal.unsafeScalars(in: run.standardOutput).isEmpty, "\(run)")
      #expect(run.standardOutput.contains("h\\u{1B}[2Jome"), "\(run)")
    }
  }

  @Test func aBadSTASHNOWIsShownEscaped() throws {
    try withRawCLI { cli in
      let run = try cli.run(
        ["list"],
        environment: ["STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": "5\u{1B}[31m"])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.hasPrefix("STASH_NOW '5\\u{1B}[31m' "), "\(run)")
    }
  }

  @Test func storedTextIsShownEscapedAndItsJSONStillReadsBackTheSame() throws {
    try withRawCLI { cli in
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      let notes = "left\u{202E}right\u{2066}end\r\nnext"
      let add = try cli.run(["add", "Soap", "--notes", Bytes(notes)], environment: environment)
      #expect(add.status == 0, "\(add)")
      let show = try cli.run(["show", "Soap"], environment: environment)
      #expect(show.status == 0, "\(show)")
      #expect(Terminal.unsafeScalars(in: show.standardOutput).isEmpty, "\(show)")
      #expect(show.standardOutput.contains("left\\u{202E}right\\u{2066}end"), "\(show)")
      let json = try cli.run(["show", "Soap", "--json"], environment: environment)
      #expect(Terminal.unsafeScalars(in: json.standardOutput).isEmpty, "\(json)")
      #expect(json.standardOutput.contains("left\\u202Eright\\u2066end"), "\(json)")
      let value = try JSONParser.parse(json.standardOutput)
      #expect(value["fields"]?["notes"] == .string(notes))
    }
  }

  // MARK: - A group without its subcommand

  @Test(arguments: [[], ["location"], ["reminder"]])
  func aGroupWithoutASubcommandShowsItsHelpAndTheHint(path: [String]) throws {
    try withRawCLI { cli in
      let run = try cli.run(path.map { Bytes($0) })
      let command = (["stash"] + path).joined(separator: " ")
      #expect(run.status == 2, "\(run)")
      #expect(run.standardOutput.isEmpty)
      #expect(run.standardError.hasPrefix("OVERVIEW: "), "\(run)")
      #expect(run.standardError.contains("\nMissing subcommand for '\(command)'; use one of "))
      #expect(run.lastErrorLine == "See '\(command) --help'", "\(run)")
    }
  }
}
