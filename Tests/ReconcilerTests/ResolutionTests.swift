import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct ResolutionTests {
  static let deviceB = DeviceID("00000000-0000-4000-8000-0000000000b1")!

  /// Two devices that agreed on an item, then both edited it before either synced. B noticed.
  func divergedPair(_ folder: URL) throws -> (a: TwoStores, b: TwoStores, item: Item) {
    let a = try TwoStores(folder.appendingPathComponent("a"))
    let b = try TwoStores(folder.appendingPathComponent("b"), device: Self.deviceB)
    let item = try a.addLocally(tube(quantity: 5))
    try a.pass()
    try a.deliver(to: b)
    try b.pass()
    try a.editLocally(item.id) { $0.quantity = 4 }
    try b.editLocally(item.id) { $0.quantity = 2 }
    try a.pass()
    try a.deliver(to: b)
    let report = try b.pass()
    #expect(report.rows[.bothEdited] == 1)
    return (a, b, item)
  }

  @Test(arguments: ["local", "mirror", "deleted"])
  func aResolutionOnOneDeviceSettlesBothWithoutNewConflicts(choice: String) throws {
    try withTemporaryFolder { folder in
      let (a, b, item) = try divergedPair(folder)
      let conflict = try #require(b.openConflicts.first)
      let resolved = try b.reconciler.resolve(conflict.id, choice: ResolutionChoice(choice)!)
      #expect(resolved.state == .resolved && resolved.resolution?.choice == choice)
      let expected: Int64? = ["local": 2, "mirror": 4, "deleted": nil][choice]!
      #expect(b.localItem(item.id)?.quantity == expected)
      #expect(b.openConflicts.isEmpty)
      let files = try b.files()
      #expect(try b.pass().changedAnything == false, "the resolution is already agreed")
      #expect(try b.files() == files)

      try b.deliver(to: a)
      let report = try a.pass()
      #expect(report.newConflicts.isEmpty)
      #expect(a.localItem(item.id)?.quantity == expected)
      #expect(a.openConflicts.isEmpty)
      try a.deliver(to: b)
      #expect(try b.pass().newConflicts.isEmpty)
      a.expectHealthy()
      b.expectHealthy()
    }
  }

  @Test func theResolutionNamesEveryReplacedVersionAsAParent() throws {
    try withTemporaryFolder { folder in
      let (_, b, item) = try divergedPair(folder)
      let conflict = try #require(b.openConflicts.first)
      let sides = Set(conflict.sides.compactMap(\.snapshot?.hash))
      let resolved = try b.reconciler.resolve(conflict.id, choice: .local)
      let key = RecordKey(model: "item", id: item.id)
      let version = try #require(b.mirror.content.side(for: key).winner)
      #expect(version.hash == resolved.resolution?.result)
      // Every side it replaces is a parent (a side with exactly the chosen content, same
      // updatedAt included, is the new version itself).
      let parentSnapshots = version.parents.map { parent in
        b.mirror.content.version(parent, of: key)?.hash ?? SnapshotHash(digest: parent.digest)
      }
      #expect(Set(parentSnapshots).union([version.hash]).isSuperset(of: sides))
      #expect(b.mirror.content.side(for: key).leaves.count == 1)
      #expect(b.local.content.checkpoints[key] == .record(version.hash, version: version.id))
      let clockNow = b.clock.now
      #expect(try Item(record: version.snapshot.record!).updatedAt == clockNow, "updatedAt = now")
    }
  }

  @Test func aDeletionResolvedAsKeepTheEditBringsTheRecordBackOnTheDeletingDevice() throws {
    try withTemporaryFolder { folder in
      let a = try TwoStores(folder.appendingPathComponent("a"))
      let b = try TwoStores(folder.appendingPathComponent("b"), device: Self.deviceB)
      let item = try a.addLocally(tube())
      try a.pass()
      try a.deliver(to: b)
      try b.pass()
      try b.deleteLocally(item.id)
      try b.pass()  // the tombstone goes to B's mirror (row 14 / 9)
      try a.editLocally(item.id) { $0.name = "Renamed on A" }
      try b.deliver(to: a)
      #expect(try a.pass().rows[.editedHereDeletedThere] == 1)
      let conflict = try #require(a.openConflicts.first)
      try a.reconciler.resolve(conflict.id, choice: .local)
      try a.deliver(to: b)
      let report = try b.pass()
      #expect(report.rows[.restoredInMirror] == 1)
      #expect(report.newConflicts.isEmpty)
      #expect(b.localItem(item.id)?.name == "Renamed on A")
      #expect(b.local.content.tombstones[RecordKey(model: "item", id: item.id)] == nil)
    }
  }

  @Test func choicesThatDoNotFitAreRefusedAndChangeNothing() throws {
    try withTemporaryFolder { folder in
      let (_, b, _) = try divergedPair(folder)
      let conflict = try #require(b.openConflicts.first)
      let files = try b.files()
      #expect {
        try b.reconciler.resolve(conflict.id, choice: .version("ffffffff"))
      } throws: {
        isRefusedResolution($0)
      }
      #expect {
        try b.reconciler.resolve(ConflictID(key: conflict.key, sides: []), choice: .local)
      } throws: {
        isRefusedResolution($0)
      }
      #expect(try b.files() == files)
      try b.reconciler.resolve(conflict.id, choice: .local)
      #expect {
        try b.reconciler.resolve(conflict.id, choice: .local)
      } throws: {
        isRefusedResolution($0)
      }
    }
  }

  @Test func aResolutionIsRefusedWhenTheRecordWasEditedHereAfterTheConflict() throws {
    try withTemporaryFolder { folder in
      let (_, b, item) = try divergedPair(folder)
      let stale = try #require(b.openConflicts.first)
      try b.editLocally(item.id) { $0.quantity = 1 }
      let files = try b.files()
      #expect(throws: ReconcileError.resolution(.changedSince(stale))) {
        try b.reconciler.resolve(stale.id, choice: .mirror)
      }
      #expect(try b.files() == files, "nothing was written")
      let report = try b.pass()
      #expect(report.newConflicts.count == 1, "the new disagreement is recorded")
      #expect(b.local.content.conflicts[stale.id]?.state == .superseded)
      let fresh = try #require(b.openConflicts.first)
      try b.reconciler.resolve(fresh.id, choice: .local)
      #expect(b.localItem(item.id)?.quantity == 1)
    }
  }
}

/// Whether the reconciler refused a resolution because the choice does not fit the conflict.
private func isRefusedResolution(_ error: any Error) -> Bool {
  if case ReconcileError.resolution = error { return true }
  return false
}
