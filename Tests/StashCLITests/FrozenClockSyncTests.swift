import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Version identity through the binary: every CLI test runs with `STASH_NOW` fixed, a frozen
/// clock, so a record that returns to an earlier state is byte for byte the earlier snapshot.
@Suite struct FrozenClockSyncTests {
  private func devices(_ cli: CLI) throws -> (a: CLI, b: CLI, cloud: URL) {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var a = cli
    a.home = cli.folder.appendingPathComponent("device-a")
    var b = cli
    b.home = cli.folder.appendingPathComponent("device-b")
    return (a, b, cloud)
  }

  private func expectDone(_ run: Run) {
    #expect(run.status == 0, "\(run)")
  }

  @Test func aRecordThatReturnsToAnEarlierSnapshotReachesTheOtherDevice() throws {
    try withCLI { cli in
      let (a, b, cloud) = try devices(cli)
      expectDone(try a.run(["sync", "enable", "--cloud", cloud.path]))
      expectDone(try a.run(["add", "Koleston 7/1", "--quantity", "5"]))
      expectDone(try a.run(["sync"]))
      expectDone(try a.run(["restock", "Koleston 7/1", "1"]))
      expectDone(try a.run(["sync"]))
      expectDone(try a.run(["consume", "Koleston 7/1"]))  // 5 again, same updatedAt
      expectDone(try a.run(["sync"]))
      expectDone(try b.run(["sync", "enable", "--cloud", cloud.path]))
      expectDone(try b.run(["sync"]))
      let shown = try b.run(["show", "Koleston 7/1", "--json"])
      #expect(shown.status == 0, "the record looked absent from the mirror: \(shown)")
      #expect(try shown.json()["quantity"]?.integer == 5)
      for device in [a, b] {
        expectDone(try device.run(["sync"]))
        #expect(try device.run(["conflicts"]).standardOutput == "No open conflicts\n")
      }
    }
  }

  @Test func aDeviceFolderAndSharedFolderOfFormat1KeepSyncing() throws {
    try withCLI { cli in
      let (a, b, cloud) = try devices(cli)
      let fixture = Fixtures.url("formats/format-1-frozen-clock")
      try FileManager.default.copyItem(at: fixture.appendingPathComponent("cloud"), to: cloud)
      try FileManager.default.copyItem(at: fixture.appendingPathComponent("home"), to: a.home)
      // The fixture's settings name the folder it was made in; point them here.
      expectDone(try a.run(["sync", "enable", "--cloud", cloud.path]))
      expectDone(try a.run(["sync"]))
      #expect(
        FileManager.default.fileExists(
          atPath: a.home.appendingPathComponent("cloud.store.format-1").path))
      #expect(try a.run(["conflicts"]).standardOutput == "No open conflicts\n")
      expectDone(try a.run(["consume", "Koleston 7/1", "2"]))
      expectDone(try a.run(["sync"]))
      expectDone(try b.run(["sync", "enable", "--cloud", cloud.path]))
      expectDone(try b.run(["sync"]))
      let shown = try b.run(["show", "Koleston 7/1", "--json"])
      #expect(try shown.json()["quantity"]?.integer == 3, "\(shown)")
      #expect(try b.run(["conflicts"]).standardOutput == "No open conflicts\n")
      let doctor = try a.run(["doctor"])
      #expect(doctor.status == 0, "\(doctor)")
    }
  }
}
