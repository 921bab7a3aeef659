import Foundation
import StashBase
import StashTestSupport
import Testing

/// `stash help CMD` prints what `stash CMD --help` prints, as git's `help` does (issue 24,
/// item 6).
@Suite struct HelpWordTests {
  @Test(arguments: [["sync"], ["sync", "status"], ["location", "add"], ["consume"], []])
  func helpNamesACommandAsGitDoes(path: [String]) throws {
    try withCLI { cli in
      let asked = try cli.run(["help"] + path)
      let flagged = try cli.run(path + ["--help"])
      #expect(asked.status == 0, "\(asked)")
      #expect(asked.standardOutput == flagged.standardOutput)
      #expect(!asked.standardOutput.isEmpty)
    }
  }

  @Test func helpOfAnUnknownCommandIsAUsageMistakeWithASuggestion() throws {
    try withCLI { cli in
      let run = try cli.run(["help", "synk"])
      #expect(run.status == 2, "\(run)")
      #expect(run.standardOutput.isEmpty)
      #expect(
        run.standardError.contains("Unknown command 'synk' for 'stash'; did you mean 'sync'?"),
        "\(run)")
      #expect(run.standardError.contains("See 'stash --help'"), "\(run)")
      #expect(try cli.run(["help", "nosuch"]).status == 2)
      #expect(!FileManager.default.fileExists(atPath: cli.home.path))
    }
  }
}
