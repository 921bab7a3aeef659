import Foundation
import StashModel
import StashTestSupport
import Testing

/// Names that show nothing or reorder the text around them are refused; names in every script
/// are kept.
@Suite struct NameRuleTests {
  static let now = Bytes("1764441600")

  // MARK: - Invisible and right-to-left names

  @Test(arguments: [
    "\u{FEFF}", "\u{200B}", "\u{200B}\u{FEFF} \u{2060}", "\u{202E}abc", "ab\u{202D}c", "x\u{2067}y",
  ])
  func anInvisibleOrBidiControlledNameIsRefused(name: String) throws {
    try withRawCLI { cli in
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      for arguments: [Bytes] in [["add", Bytes(name)], ["location", "add", Bytes(name)]] {
        let run = try cli.run(arguments, environment: environment)
        #expect(run.status == 1, "\(arguments): \(run)")
        #expect(run.standardError.contains("name"), "\(run)")
      }
      #expect(!FileManager.default.fileExists(atPath: cli.sandbox + "/home"))
    }
  }

  @Test(arguments: ["שמפו", "شامبو", "🧴", "👩‍👩‍👧", "e\u{301}te", "Ölfarbe"])
  func namesInEveryScriptAreKept(name: String) throws {
    try withRawCLI { cli in
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      let run = try cli.run(["add", Bytes(name)], environment: environment)
      #expect(run.status == 0, "\(run)")
      #expect(run.standardOutput.contains(name), "\(run)")
    }
  }

  @Test(arguments: ["\u{1B}]0;owned\u{07}", "\u{202E}nehctik", "\u{FEFF}", "kitchen\u{7F}"])
  func aDeviceNameFollowsTheSameRules(name: String) throws {
    try withRawCLI { cli in
      let run = try cli.run(
        ["init", "--name", Bytes(name)],
        environment: ["STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.hasPrefix("The device name '"), "\(run)")
      #expect(!FileManager.default.fileExists(atPath: cli.sandbox + "/home"))
    }
  }
}
