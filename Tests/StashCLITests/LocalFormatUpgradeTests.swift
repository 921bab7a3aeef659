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
      #expect(try header(store).contains(#""version":3"#))
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
      #expect(try header(store).contains(#""version":3"#))
      let text = try String(contentsOf: store, encoding: .utf8)
      #expect(text.contains(#""stepsDone":["legacy-json-blob-1"]"#))
      let second = try cli.run(["list", "--json"])
      let listed = try second.json().elements.count
      #expect(!second.standardError.contains("Imported") && listed == 4, "\(second)")
    }
  }
}
