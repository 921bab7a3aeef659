import Foundation
import StashBase
import StashTestSupport
import Testing

/// Sync described as a CLI user has it: on or off, set up by `stash sync enable`; the
/// entitlement rule stays in the library for apps (issue 24, item 6).
@Suite struct SyncWordingTests {
  /// Words a person who bought nothing should not read from the CLI.
  static let shopWords = ["entitle", "subscription", "purchase", "trial", "unlock"]

  static func shopWord(in text: String) -> String? {
    shopWords.first { text.lowercased().contains($0) }
  }

  @Test func syncStatusSaysOnOrOffAndHowToTurnItOnWithoutShopWords() throws {
    try withCLI { cli in
      try cli.run(["add", "Soap"])
      let off = try cli.run(["sync", "status"])
      #expect(off.standardOutput.hasPrefix("Sync: off"), "\(off)")
      #expect(off.standardOutput.contains("'stash sync enable --cloud DIR'"), "\(off)")
      #expect(Self.shopWord(in: off.standardOutput) == nil, "\(off)")
      let offJSON = try cli.run(["sync", "status", "--json"]).json()
      #expect(offJSON["on"] == .bool(false))
      #expect(offJSON["mirrorState"]?.text == "off", "\(offJSON)")
      #expect(offJSON["mirrorProblem"] == .null, "\(offJSON)")
      #expect(offJSON["entitlement"] == nil && offJSON["savedEntitlement"] == nil)
      let doctor = try cli.run(["doctor"]).standardOutput
      #expect(Self.shopWord(in: doctor) == nil, "\(doctor)")

      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      try cli.run(["sync", "enable", "--cloud", cloud.path])
      let on = try cli.run(["sync", "status"])
      #expect(on.standardOutput.hasPrefix("Sync: on"), "\(on)")
      #expect(on.standardOutput.contains("'stash sync disable'"), "\(on)")
      #expect(Self.shopWord(in: on.standardOutput) == nil, "\(on)")
    }
  }

  @Test(arguments: [
    ["sync"], ["sync", "enable"], ["sync", "disable"], ["sync", "status"], ["doctor"], [],
  ])
  func syncHelpSpeaksOfTurningSyncOnAndOff(path: [String]) throws {
    try withCLI { cli in
      let help = try cli.run(path + ["--help"]).standardOutput
      #expect(Self.shopWord(in: help) == nil, "\(path): \(help)")
    }
  }
}
