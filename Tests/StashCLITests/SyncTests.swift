import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Two devices sharing one cloud folder, driven through the `stash` binary as people would.
@Suite struct SyncTests {
  /// Device A and device B (two homes in one test folder) with sync set up through `cloud`.
  private func pair(_ cli: CLI) throws -> (a: CLI, b: CLI, cloud: URL) {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var a = cli
    a.home = cli.folder.appendingPathComponent("device-a")
    var b = cli
    b.home = cli.folder.appendingPathComponent("device-b")
    for device in [a, b] {
      let enabled = try device.run(["sync", "enable", "--cloud", cloud.path])
      #expect(enabled.status == 0, "\(enabled)")
    }
    return (a, b, cloud)
  }

  private func quantity(_ cli: CLI, _ item: String) throws -> Int64? {
    let shown = try cli.run(["show", item, "--json"])
    guard shown.status == 0 else { return nil }
    return try shown.json()["quantity"]?.integer
  }

  private func sync(_ cli: CLI) throws -> Run {
    let run = try cli.run(["sync", "--json"])
    #expect(run.status == 0, "\(run)")
    return run
  }

  @Test func fiveBecomeFourOnBothDevicesOnlyAfterBothSync() throws {
    try withCLI { cli in
      let (a, b, _) = try pair(cli)
      try a.run(["add", "Koleston 7/1", "--quantity", "5", "--unit", "tube"])
      _ = try sync(a)
      _ = try sync(b)
      #expect(try quantity(a, "Koleston 7/1") == 5 && quantity(b, "Koleston 7/1") == 5)
      #expect(try a.run(["consume", "Koleston 7/1"]).status == 0)  // a, offline for a while
      #expect(try quantity(a, "Koleston 7/1") == 4)
      #expect(try quantity(b, "Koleston 7/1") == 5)
      _ = try sync(a)
      _ = try sync(b)
      #expect(try quantity(a, "Koleston 7/1") == 4 && quantity(b, "Koleston 7/1") == 4)
    }
  }

  @Test func deletionsOnEitherDeviceArriveAndStayDeleted() throws {
    try withCLI { cli in
      let (a, b, _) = try pair(cli)
      try a.run(["add", "Bleach"])
      try b.run(["add", "Toner"])
      for device in [a, b, a, b] { _ = try sync(device) }
      #expect(try b.run(["delete", "Bleach"]).status == 0)
      #expect(try a.run(["delete", "Toner"]).status == 0)
      for _ in 0..<3 {
        for device in [a, b] { _ = try sync(device) }
      }
      for device in [a, b] {
        let list = try device.run(["list", "--json"]).json()
        #expect(list.elements.isEmpty, "\(list)")
        #expect(try device.run(["conflicts", "--json"]).json().elements.isEmpty)
      }
    }
  }

  @Test func editsOnBothDevicesBeforeEitherSyncsBecomeAConflictThatOneResolutionSettles() throws {
    try withCLI { cli in
      let (a, b, _) = try pair(cli)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      for device in [a, b] { _ = try sync(device) }
      // A move here and a recount there cannot be ordered: a conflict (moves alone merge).
      try a.run(["consume", "Koleston 7/1"])
      try b.run(["edit", "Koleston 7/1", "--quantity", "2"])
      _ = try sync(a)
      let noticed = try sync(b).json()
      #expect(noticed["newConflicts"]?.elements.count == 1)
      #expect(try quantity(a, "Koleston 7/1") == 4, "each keeps its own version")
      #expect(try quantity(b, "Koleston 7/1") == 2)
      let conflicts = try b.run(["conflicts", "--json"]).json().elements
      #expect(conflicts.count == 1)
      let id = try #require(conflicts.first?["id"]?.text)
      let shown = try b.run(["conflicts", "show", id, "--json"]).json()
      let quantities = shown["sides"]?.elements.compactMap {
        $0["snapshot"]?["fields"]?["quantity"].flatMap(counterValue)
      }
      #expect(Set(quantities ?? []) == [4, 2], "the conflict holds both versions")
      let before = b.storeBytes()
      _ = try sync(b)
      #expect(b.storeBytes() == before, "a further sync changes nothing")

      #expect(try b.run(["conflicts", "resolve", id, "--keep", "mirror"]).status == 0)
      for device in [b, a, b, a] {
        let report = try sync(device).json()
        #expect(report["newConflicts"]?.elements.isEmpty == true)
      }
      #expect(try quantity(a, "Koleston 7/1") == 4 && quantity(b, "Koleston 7/1") == 4)
      for device in [a, b] {
        #expect(try device.run(["conflicts", "--json"]).json().elements.isEmpty)
      }
    }
  }

  @Test func aPhotoAddedOnOneDeviceArrivesIntactOnTheOther() throws {
    try withCLI { cli in
      let (a, b, _) = try pair(cli)
      let photo = try cli.photo(size: 300_000, seed: 3)
      try a.run(["add", "Koleston 7/1", "--photo", photo])
      _ = try sync(a)
      _ = try sync(b)
      let shown = try b.run(["show", "Koleston 7/1", "--json"]).json()
      let digest = try #require(shown["fields"]?["photo"]?["sha256"]?.text)
      let arrived = try Data(
        contentsOf: b.home.appendingPathComponent("blobs").appendingPathComponent(digest))
      #expect(arrived == (try Data(contentsOf: URL(fileURLWithPath: photo))))
      #expect(try b.run(["doctor"]).status == 0)
    }
  }

  @Test func withTheCloudFolderUnreachableSyncWritesNothing() throws {
    try withCLI { cli in
      let (a, _, cloud) = try pair(cli)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      _ = try sync(a)  // a mirror created and used by an earlier run
      try a.run(["consume", "Koleston 7/1"])
      let parked = cli.folder.appendingPathComponent("cloud-unmounted")
      try FileManager.default.moveItem(at: cloud, to: parked)
      let before = a.storeBytes()
      let offline = try a.run(["sync"])
      #expect(offline.status == 1)
      #expect(offline.standardError.contains("cannot be reached"), "\(offline)")
      #expect(a.storeBytes() == before, "neither store changed: the gate stayed closed")
      #expect(try a.run(["consume", "Koleston 7/1"]).status == 0, "the inventory keeps working")
      try FileManager.default.moveItem(at: parked, to: cloud)
      _ = try sync(a)
      #expect(try a.run(["sync", "status", "--json"]).json()["pendingExports"]?.integer == 0)
    }
  }

  @Test func aFolderOfAnotherAccountIsRefusedAndNothingIsMerged() throws {
    try withCLI { cli in
      let (a, _, _) = try pair(cli)
      try a.run(["add", "Koleston 7/1"])
      _ = try sync(a)
      let other = cli.folder.appendingPathComponent("someone-elses-cloud")
      try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
      var stranger = cli
      stranger.home = cli.folder.appendingPathComponent("stranger")
      try stranger.run(["sync", "enable", "--cloud", other.path])
      try stranger.run(["add", "Not yours"])
      _ = try sync(stranger)
      try a.run(["sync", "enable", "--cloud", other.path])
      let before = a.storeBytes()
      let refused = try a.run(["sync"])
      #expect(refused.status == 1)
      #expect(refused.standardError.contains("nothing was merged"), "\(refused)")
      #expect(a.storeBytes() == before)
      #expect(try a.run(["list", "--json"]).json().elements.count == 1)
    }
  }

  @Test func tamperedSegmentsAreRejectedAndReportedWithoutTouchingTheMirror() throws {
    try withCLI { cli in
      let (a, b, cloud) = try pair(cli)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      _ = try sync(a)
      _ = try sync(b)  // b belongs to the zone now, and has read a's first segment
      try a.run(["consume", "Koleston 7/1"])
      let segment = try #require(try sync(a).json()["segment"]?.text)
      let path = cloud.appendingPathComponent(segment).path
      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(text.contains("\"base\":5,"))
      try text.replacingOccurrences(of: "\"base\":5,", with: "\"base\":50,")
        .write(toFile: path, atomically: true, encoding: .utf8)
      let mirrorBefore = try Data(contentsOf: b.home.appendingPathComponent("cloud.store"))
      let report = try sync(b).json()
      let rejected = report["rejectedSegments"]?.elements.compactMap(\.text) ?? []
      #expect(
        rejected.count == 1 && rejected[0].contains("does not match its content"), "\(rejected)")
      #expect(try Data(contentsOf: b.home.appendingPathComponent("cloud.store")) == mirrorBefore)
      #expect(try quantity(b, "Koleston 7/1") == 5, "never applied")
    }
  }
}
