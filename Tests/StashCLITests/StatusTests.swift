import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `sync status` tells the truth: the last import and export of a run that had nothing to do,
/// values instead of prose in `--json`, the digest, the other devices and what waits.
@Suite struct StatusTests {
  let views = SharedFolderViews()

  @Test func aSyncThatFoundNothingStillCountsAsTheLastImportAndExport() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.sync(devices[0])
      try views.sync(devices[1])  // nothing to import, nothing to export
      let text = try devices[1].run(["sync", "status"]).standardOutput
      #expect(!text.contains("never"), "\(text)")
      #expect(text.contains("Last import: 2025-11-29 18:40:00 +00:00"), "\(text)")
      #expect(text.contains("Last export: 2025-11-29 18:40:00 +00:00"), "\(text)")
      let json = try devices[1].run(["sync", "status", "--json"]).json()
      #expect(json["lastImport"]?.text == "2025-11-29T18:40:00.000Z", "\(json)")
      #expect(json["lastExport"]?.text == "2025-11-29T18:40:00.000Z", "\(json)")
    }
  }

  @Test func statusJSONHoldsValuesNotProse() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac"])
      try devices[0].run(["add", "Soap"])
      try views.sync(devices[0])
      let json = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(json["gate"] == nil, "the gate was a sentence; lastImport says when it opened")
      #expect(json["on"] == .bool(true))
      #expect(json["mirrorState"]?.text == "open")
      #expect(json["onFromNextRun"] == .bool(true))
      // Only the documented message fields may hold a sentence.
      let messages: Set<String> = ["mirrorProblem", "exportStopped", "folderProblem"]
      guard case .object(let object)? = Optional(json) else { return }
      for (key, value) in object where !messages.contains(key) {
        if case .string(let text) = value {
          #expect(!text.contains(" "), "'\(key)' holds prose: \(text)")
        }
        if case .double = value { Issue.record("'\(key)' is a raw number: \(value)") }
      }
    }
  }

  @Test func humanOutputShowsLocalTimesAndDashesForAbsentValues() throws {
    try withCLI { cli in
      try cli.run(["add", "Soap"])
      let shown = try cli.shell("TZ=Asia/Kolkata \"$0\" show Soap").standardOutput
      #expect(shown.contains("created   2025-11-30 00:10:00 +05:30"), "\(shown)")
      let status = try cli.shell("TZ=Asia/Kolkata \"$0\" sync status").standardOutput
      #expect(status.contains("Last import: -"), "\(status)")
      #expect(status.contains("Shared folder: -"), "\(status)")
      for text in [shown, status] {
        #expect(!text.contains("null") && !text.contains("never"), "\(text)")
        #expect(text.range(of: #"\d{10}\.\d"#, options: .regularExpression) == nil, "\(text)")
      }
    }
  }

  @Test func twoDevicesWithTheSameInventoryShowTheSameDigest() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      try devices[0].run(["add", "Temp"])
      try devices[0].run(["delete", "Temp"])
      for device in devices + devices { try views.sync(device) }
      let digests = try devices.map {
        try $0.run(["sync", "status", "--json"]).json()["digest"]?["overall"]?.text
      }
      #expect(digests[0] != nil && digests[0] == digests[1], "\(digests)")
      let line = try devices[1].run(["sync", "status"]).standardOutput
      #expect(line.contains("Digest: \(digests[0]!.prefix(16)) (item "), "\(line)")

      try devices[0].run(["consume", "Koleston 7/1"])
      let after = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(after["digest"]?["overall"]?.text != digests[0], "a consume changes the digest")
    }
  }

  @Test func verifyNamesTheRecordsThatDifferAndExitsFiveUntilSynced() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      #expect(try devices[1].run(["sync", "verify"]).status == 0)
      try devices[0].run(["consume", "Koleston 7/1"])

      let here = try devices[0].run(["sync", "verify"])
      #expect(here.status == 5, "\(here)")
      #expect(here.standardOutput.contains("item 'Koleston 7/1'"), "\(here)")
      #expect(here.standardOutput.contains("changed-here"), "\(here)")
      try views.sync(devices[0])
      let there = try devices[1].run(["sync", "verify", "--json"])
      #expect(there.status == 5, "\(there)")
      let json = try there.json()
      #expect(json["inSync"] == .bool(false))
      let differences = json["differences"]?.elements ?? []
      #expect(differences.count == 1 && differences.first?["kind"]?.text == "changed-there")
      #expect(differences.first?["name"]?.text == "Koleston 7/1")
      try views.sync(devices[1])
      let verified = try devices[1].run(["sync", "verify", "--json"])
      #expect(verified.status == 0, "\(verified)")
      let same = try verified.json()
      #expect(same["here"]?["overall"] == same["sharedFolder"]?["overall"])
    }
  }

  @Test func verifyIsRefusedWhenSyncIsOff() throws {
    try withCLI { cli in
      try cli.run(["add", "Soap"])
      let before = cli.storeBytes()
      let run = try cli.run(["sync", "verify"])
      #expect(run.status == 1, "\(run)")
      #expect(cli.storeBytes() == before)
    }
  }

  @Test func statusListsEveryOtherDeviceAndWhenItLastWrote() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try devices[0].run(["add", "Soap"])
      try views.sync(devices[0])
      try devices[1].run(["add", "Comb"])
      for device in devices + devices { try views.sync(device) }
      let json = try devices[0].run(["sync", "status", "--json"]).json()
      let others = json["devices"]?.elements ?? []
      #expect(others.count == 1, "\(json)")
      #expect(others.first?["name"]?.text == "salon-iphone")
      #expect(others.first?["lastWrote"]?.text == "2025-11-29T18:40:00.000Z")
      #expect(others.first?["segments"]?.integer == 1)
      #expect(json["device"]?["name"]?.text == "salon-mac")
      let text = try devices[0].run(["sync", "status"]).standardOutput
      #expect(text.contains("salon-iphone"), "\(text)")
    }
  }

  @Test func listPendingShowsWhatHasNotLeftThisDevice() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac"])
      try devices[0].run(["add", "Soap"])
      try views.sync(devices[0])
      let none = try devices[0].run(["list", "--pending", "--json"]).json()
      #expect(none["items"]?.elements.isEmpty == true, "\(none)")
      #expect(none["deletions"]?.elements.isEmpty == true, "\(none)")
      try devices[0].run(["add", "Comb"])
      let pending = try devices[0].run(["list", "--pending", "--json"]).json()
      #expect(pending["items"]?.elements.compactMap { $0["fields"]?["name"]?.text } == ["Comb"])
      let status = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(status["pendingRecords"]?.integer == 1)
      try views.sync(devices[0])
      let text = try devices[0].run(["list", "--pending"]).standardOutput
      #expect(text.contains("have left this device"), "\(text)")
    }
  }

  @Test func listPendingShowsDeletionsThatHaveNotLeftThisDevice() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac"])
      try devices[0].run(["add", "Soap"])
      try devices[0].run(["add", "Comb"])
      try views.sync(devices[0])
      try devices[0].run(["delete", "Soap"])
      // Deleted before it ever synced: only this device's log knows its name.
      try devices[0].run(["add", "Brush"])
      try devices[0].run(["delete", "Brush"])
      let json = try devices[0].run(["list", "--pending", "--json"]).json()
      #expect(json["items"]?.elements.isEmpty == true, "\(json)")
      let deletions = json["deletions"]?.elements ?? []
      #expect(Set(deletions.compactMap { $0["name"]?.text }) == ["Soap", "Brush"], "\(json)")
      #expect(deletions.allSatisfy { $0["deletedAt"]?.text == "2025-11-29T18:40:00.000Z" })
      #expect(deletions.allSatisfy { $0["model"]?.text == "item" && $0["hash"]?.text != nil })
      let text = try devices[0].run(["list", "--pending"]).standardOutput
      #expect(text.contains("Deleted here, not sent yet:"), "\(text)")
      #expect(text.contains("Soap") && text.contains("Brush"), "\(text)")
      #expect(!text.contains("Comb"), "\(text)")
      try views.sync(devices[0])
      let after = try devices[0].run(["list", "--pending", "--json"]).json()
      #expect(after["deletions"]?.elements.isEmpty == true, "\(after)")
    }
  }

  @Test func aSyncWithNothingNewUpdatesTheLastImportAndChangesNoStore() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac"])
      try devices[0].run(["add", "Soap"])
      try views.sync(devices[0])
      let stores = devices[0].storeBytes()
      // One item: no local index, so the digest comes from the rows.
      let index = devices[0].home.appendingPathComponent("default.store.index")
      let later = Int(epoch.secondsSince1970) + 3600
      let run = try devices[0].shell("STASH_NOW=\(later) \"$0\" sync")
      #expect(run.status == 0, "\(run)")
      #expect(devices[0].storeBytes() == stores, "a sync with nothing new changed a store")
      let text = try devices[0].run(["sync", "status"]).standardOutput
      #expect(text.contains("Last import: 2025-11-29 19:40:00 +00:00"), "\(text)")
      #expect(text.contains("Last export: 2025-11-29 19:40:00 +00:00"), "\(text)")
      let json = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(json["lastImport"]?.text == "2025-11-29T19:40:00.000Z", "\(json)")
      #expect(json["lastExport"]?.text == "2025-11-29T19:40:00.000Z", "\(json)")
      // Status only reads: it computes the digest again, the same, and writes nothing.
      let again = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(again["digest"] == json["digest"], "\(again)")
      #expect(!FileManager.default.fileExists(atPath: index.path))
      #expect(devices[0].storeBytes() == stores)
    }
  }

  /// `sync status` falls back on the mirror's recorded times when the sync state holds none it
  /// can use (how each damage is ignored: the one suite of every derived file).
  @Test func aDamagedSyncStateIsIgnoredForTheMirrorsTime() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac"])
      try devices[0].run(["add", "Soap"])
      try views.sync(devices[0])
      let later = Int(epoch.secondsSince1970) + 3600
      #expect(try devices[0].shell("STASH_NOW=\(later) \"$0\" sync").status == 0)
      let file = devices[0].home.appendingPathComponent("sync.state")
      for damage in ["stash.sync.state\n", "", "\u{0}\u{1}garbage"] {
        try Data(damage.utf8).write(to: file)
        let run = try devices[0].run(["sync", "status", "--json"])
        #expect(run.status == 0, "\(run)")
        // The mirror's own time: the first sync's.
        #expect(try run.json()["lastImport"]?.text == "2025-11-29T18:40:00.000Z", "\(run)")
      }
      // A sync still works and writes a good file again.
      let latest = Int(epoch.secondsSince1970) + 7200
      #expect(try devices[0].shell("STASH_NOW=\(latest) \"$0\" sync").status == 0)
      let json = try devices[0].run(["sync", "status", "--json"]).json()
      #expect(json["lastImport"]?.text == "2025-11-29T20:40:00.000Z", "\(json)")
      // A folder as the file: the sync does not fail, status falls back.
      try FileManager.default.removeItem(at: file)
      try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
      #expect(try devices[0].run(["sync"]).status == 0)
      let fallback = try devices[0].run(["sync", "status", "--json"])
      #expect(fallback.status == 0, "\(fallback)")
      #expect(try fallback.json()["lastImport"]?.text == "2025-11-29T18:40:00.000Z")
    }
  }

  /// Every command of the table, by path.
  static let commandPaths: [[String]] = [
    [], ["init"], ["add"], ["list"], ["show"], ["consume"], ["restock"], ["delete"], ["edit"],
    ["duplicate"], ["location"], ["location", "add"], ["location", "list"], ["location", "edit"],
    ["location", "delete"], ["reminder"], ["reminder", "add"], ["reminder", "list"],
    ["reminder", "delete"], ["sync"], ["sync", "enable"], ["sync", "disable"],
    ["sync", "status"], ["sync", "new-identity"], ["sync", "verify"], ["conflicts"],
    ["conflicts", "show"], ["conflicts", "resolve"], ["doctor"], ["export"], ["import"],
    ["history"], ["undo"],
  ]

  @Test func everyHelpFitsTheTerminalWidth() throws {
    try withCLI { cli in
      for path in Self.commandPaths {
        let command = (["\"$0\""] + path + ["--help"]).joined(separator: " ")
        for (columns, limit) in [("", 80), ("COLUMNS=60 ", 60), ("COLUMNS=100 ", 100)] {
          let run = try cli.shell(columns + command)
          #expect(run.status == 0, "\(run)")
          #expect(run.standardOutput.hasPrefix("OVERVIEW: "), "\(path)")
          for line in run.standardOutput.split(separator: "\n") {
            #expect(line.count <= limit, "'stash \(path.joined(separator: " "))': \(line)")
          }
        }
      }
    }
  }
}
