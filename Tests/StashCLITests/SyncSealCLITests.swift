import Foundation
import StashModel
import StashTestSupport
import Testing

/// `stash sync` with nothing new, skipped through the sync seal, says exactly what the full
/// sync says, in text and in JSON.
@Suite struct SyncSealCLITests {
  @Test func aSkippedSyncPrintsWhatTheFullSyncPrints() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      try cli.run(["add", "Koleston 7/1", "--quantity", "5"])
      #expect(try cli.run(["sync"]).status == 0)
      let seal = cli.home.appendingPathComponent("sync.state").path
      #expect(FileManager.default.fileExists(atPath: seal))
      for arguments in [["sync"], ["sync", "--json"]] {
        try FileManager.default.removeItem(atPath: seal)
        let full = try cli.run(arguments)
        #expect(FileManager.default.fileExists(atPath: seal), "the full sync wrote the seal")
        let skipped = try cli.run(arguments)
        #expect(full.status == 0 && skipped.status == 0)
        #expect(skipped.standardOutput == full.standardOutput, "\(arguments)")
        #expect(skipped.standardError == full.standardError, "\(arguments)")
      }
      // After an edit the full sync runs (and exports it).
      try cli.run(["consume", "Koleston 7/1"])
      let after = try cli.run(["sync", "--json"])
      #expect(try after.json()["exported"]?.integer == 1, "\(after)")
    }
  }

  /// After a local edit, the sync of sealed changes (a pass over that record) prints what the
  /// full sync prints after the same edit (only the exported segment's number differs).
  @Test func aSyncOfSealedChangesPrintsWhatTheFullSyncPrints() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      try cli.run(["add", "Koleston 7/1", "--quantity", "5"])
      try cli.run(["add", "Foils", "--quantity", "2"])
      #expect(try cli.run(["sync"]).status == 0)
      let seal = cli.home.appendingPathComponent("sync.state").path
      for arguments in [["sync"], ["sync", "--json"]] {
        try cli.run(["consume", "Koleston 7/1"])
        let sealed = try cli.run(arguments)
        try cli.run(["consume", "Koleston 7/1"])
        try FileManager.default.removeItem(atPath: seal)
        let full = try cli.run(arguments)
        #expect(sealed.status == 0 && full.status == 0)
        func segmentless(_ text: String) -> String {
          text.replacing(/\d{6}\.jsonl/, with: "N.jsonl")
        }
        #expect(
          segmentless(sealed.standardOutput) == segmentless(full.standardOutput), "\(arguments)")
        #expect(sealed.standardError == full.standardError, "\(arguments)")
      }
      #expect(try cli.run(["show", "Koleston 7/1", "--json"]).json()["quantity"]?.integer == 1)
    }
  }
}
