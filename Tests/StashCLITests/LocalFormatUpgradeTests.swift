import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// `default.store` format 3 holds the one-time steps done; a format-2 store
/// (`Fixtures/formats/local-format-2`) has none, reads unchanged, and is rewritten as
/// format 3 by its first save, the old file kept beside it.
@Suite struct LocalFormatUpgradeTests {
  private func fixture(_ cli: CLI) throws -> URL {
    try FileManager.default.copyItem(
      at: Fixtures.url("formats/local-format-2/home"), to: cli.home)
    return cli.home.appendingPathComponent("default.store")
  }

  private func header(_ store: URL) throws -> String {
    let text = try String(contentsOf: store, encoding: .utf8)
    return String(text.prefix { $0 != "\n" })
  }

  @Test func aFormat2StoreReadsUnchangedAndItsFirstSaveUpgradesIt() throws {
    try withCLI { cli in
      let store = try fixture(cli)
      let original = try Data(contentsOf: store)
      #expect(try header(store).contains(#""format":"stash.local","version":2"#))
      let list = try cli.run(["list", "--json"])
      let listed = try list.json().elements.count
      #expect(list.status == 0 && listed == 2, "\(list)")
      #expect(try Data(contentsOf: store) == original, "a reader never upgrades a store")
      #expect(try cli.run(["consume", "Koleston 7/1"]).status == 0)
      #expect(try header(store).contains(#""version":4"#))
      let kept = store.path + ".format-2"
      #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == original)
      #expect(try cli.run(["show", "Koleston 7/1", "--json"]).json()["quantity"]?.integer == 3)
      #expect(try cli.run(["doctor"]).status == 0)
    }
  }

  @Test func aFormat2StoreHasNoStepsDoneSoItsLegacyBlobImportsOnce() throws {
    try withCLI { cli in
      let store = try fixture(cli)
      let legacy = cli.home.appendingPathComponent(DeviceFolder.legacyFileName)
      try Data(contentsOf: Fixtures.url("legacy/inventory-json-blob.json")).write(to: legacy)
      let first = try cli.run(["list"])
      #expect(first.standardError.contains("Imported 2 items"), "\(first)")
      #expect(try header(store).contains(#""version":4"#))
      let text = try String(contentsOf: store, encoding: .utf8)
      #expect(text.contains(#""stepsDone":["legacy-json-blob-1"]"#))
      let second = try cli.run(["list", "--json"])
      let listed = try second.json().elements.count
      #expect(!second.standardError.contains("Imported") && listed == 4, "\(second)")
    }
  }

  /// `Fixtures/formats/local-format-3`: two devices of the previous format, made with its
  /// binary. The iPhone (`b`) recorded a conflict the old rules made of notes edited on the Mac
  /// and a brand set on the iPhone; its checkpoints name no version. Read unchanged; the first
  /// save upgrades (the old file kept); the next sync writes the iPhone's row into the graph
  /// over the version its checkpoint names, merges the two fields and settles the conflict on
  /// both devices.
  @Test func aFormat3StoreUpgradesAndItsOldConflictMergesFieldByField() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/local-format-3/cloud"), to: cloud)
      var devices = [CLI]()
      for name in ["a", "b"] {
        var device = cli
        device.home = cli.folder.appendingPathComponent(name)
        try FileManager.default.copyItem(
          at: Fixtures.url("formats/local-format-3/\(name)"), to: device.home)
        devices.append(device)
      }
      let store = devices[1].home.appendingPathComponent("default.store")
      let original = try Data(contentsOf: store)
      #expect(try header(store).contains(#""format":"stash.local","version":3"#))
      let open = try devices[1].run(["conflicts", "--json"])
      let listed = try open.json().elements.count
      #expect(open.status == 0 && listed == 1, "\(open)")
      #expect(try Data(contentsOf: store) == original, "a reader never upgrades a store")
      for device in devices {  // the fixture's shared folder was elsewhere
        #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      }
      #expect(try header(store).contains(#""version":4"#))
      #expect(try Data(contentsOf: URL(fileURLWithPath: store.path + ".format-3")) == original)
      for device in devices + devices {
        let run = try device.run(["sync"])
        #expect(run.status == 0, "\(run)")
      }
      for device in devices {
        let tube = try device.run(["show", "Koleston 7/1", "--json"]).json()["fields"]
        #expect(tube?["notes"]?.text == "top shelf" && tube?["brand"]?.text == "Wella")
        let batteries = try device.run(["show", "AA batteries", "--json"]).json()
        #expect(batteries["quantity"]?.integer == 13, "\(batteries)")
        let conflicts = try device.run(["conflicts", "--json"]).json().elements
        #expect(conflicts.isEmpty, "\(conflicts)")
        #expect(try device.run(["doctor"]).status == 0)
      }
    }
  }
}
