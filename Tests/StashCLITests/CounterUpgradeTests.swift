import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Existing device folders and shared folders keep working when counters arrive: plain
/// quantities read as counters in their first epoch, every old hash stays valid, and devices
/// that upgrade at different times converge.
@Suite struct CounterUpgradeTests {
  /// The two device folders and the shared folder of `Fixtures/formats/format-2-two-devices`
  /// (written before counters: local stores of format 1, mirrors and segments of format 2),
  /// copied here. Their settings still name the shared folder they were made with
  /// (`/tmp/v2f/cloud`, absent here) until a test points them at the copy with `sync enable`:
  /// before that, the shared folder is unreachable, which must not read as damage.
  private func fixture(_ cli: CLI) throws -> (home: CLI, other: CLI, cloud: URL) {
    let source = Fixtures.url("formats/format-2-two-devices")
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.copyItem(at: source.appendingPathComponent("cloud"), to: cloud)
    var home = cli
    home.home = cli.folder.appendingPathComponent("home")
    var other = cli
    other.home = cli.folder.appendingPathComponent("other")
    for (device, name) in [(home, "home"), (other, "other")] {
      try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: device.home)
    }
    return (home, other, cloud)
  }

  private func quantity(_ cli: CLI, _ item: String) throws -> Int64? {
    try cli.run(["show", item, "--json"]).json()["quantity"]?.integer
  }

  @Test func plainQuantitiesOpenAsCountersWithTheirHashesUnchanged() throws {
    try withCLI { cli in
      let (home, _, _) = try fixture(cli)
      let store = home.home.appendingPathComponent("default.store")
      let original = try Data(contentsOf: store)
      let shown = try home.run(["show", "Koleston 7/1", "--json"]).json()
      #expect(shown["quantity"]?.integer == 5)
      #expect(shown["fields"]?["quantity"]?.integer == 5, "a first epoch is a plain integer")
      // The hash is the one the format-1 store recorded: nothing needs rehashing.
      let text = String(decoding: original, as: UTF8.self)
      #expect(text.contains(try #require(shown["hash"]?.text)))
      #expect(try Data(contentsOf: store) == original, "a reader never upgrades a store")
      #expect(
        !FileManager.default.fileExists(atPath: store.path + ".format-1"), "nor sets one aside")
      let doctor = try home.run(["doctor"])
      #expect(doctor.status == 0, "\(doctor)")
    }
  }

  @Test func devicesThatUpgradeAtDifferentTimesConverge() throws {
    try withCLI { cli in
      let (home, other, cloud) = try fixture(cli)
      // 'home' upgrades first: its stores are rewritten in the new formats, the old files kept.
      #expect(try home.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      #expect(try home.run(["consume", "Koleston 7/1"]).status == 0)
      #expect(try home.run(["sync"]).status == 0)
      for kept in ["default.store.format-1", "cloud.store.format-2"] {
        #expect(FileManager.default.fileExists(atPath: home.home.appendingPathComponent(kept).path))
      }
      // 'other' has not run since; it consumes offline on its old files, then syncs.
      #expect(try other.run(["consume", "Koleston 7/1", "2"]).status == 0)
      #expect(try other.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      #expect(try other.run(["sync"]).status == 0)
      #expect(try home.run(["sync"]).status == 0)
      #expect(try other.run(["sync"]).status == 0)
      #expect(try quantity(home, "Koleston 7/1") == 2)
      #expect(try quantity(other, "Koleston 7/1") == 2)
      #expect(try quantity(home, "Blondor") == 3)
      for device in [home, other] {
        #expect(try device.run(["conflicts"]).standardOutput == "No open conflicts\n")
      }
    }
  }
}
