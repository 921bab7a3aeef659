import Foundation
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The reconciler over version ids: it compares snapshot hashes, treats several leaves with
/// one snapshot as one mirror row, and names every leaf it replaces.
@Suite struct VersionIdentityPassTests {
  @Test func severalLeavesWithOneSnapshotAreAgreementNotAConflict() throws {
    try withTemporaryFolder { folder in
      let here = try TwoStores(folder)
      let item = try here.addLocally(tube())
      try here.pass()
      let key = RecordKey(model: "item", id: item.id)
      let agreed = try #require(here.mirror.content.side(for: key).winner)
      // Two devices reached the same content over different histories.
      var four = item
      four.quantity = 4
      four.updatedAt = here.tick()
      var renamed = item
      renamed.name = "Sideline"
      let sideline = try here.editInMirror(.record(renamed.record), over: [])
      try here.editInMirror(.record(four.record), over: [agreed.id])
      try here.editInMirror(.record(four.record), over: [sideline.id])
      let side = here.mirror.content.side(for: key)
      #expect(side.leaves.count == 2 && !side.isConcurrent)
      let report = try here.pass()
      #expect(here.openConflicts.isEmpty, "\(here.openConflicts)")
      #expect(report.rows[.applyMirrorEdit] == 1)
      #expect(here.localItem(item.id)?.quantity == 4)
      let checkpoint = try #require(here.local.content.checkpoints[key])
      #expect(checkpoint.hash == four.record.snapshotHash && !checkpoint.isTombstone)
      #expect(checkpoint.version.map { side.leafIDs.contains($0) } == true, "a leaf holding it")
    }
  }

  /// A local edit names the version it derives from, and only it: a leaf holding an equal
  /// snapshot may be a later version this device never saw (a set-back elsewhere), whose
  /// history must still count in a merge. Here the twin's history changed nothing the edit
  /// did, so the two merge.
  @Test func aLocalEditNamesOnlyTheVersionItDerivesFrom() throws {
    try withTemporaryFolder { folder in
      let here = try TwoStores(folder)
      let item = try here.addLocally(tube())
      try here.pass()
      let key = RecordKey(model: "item", id: item.id)
      let first = try #require(here.mirror.content.side(for: key).winner)
      // The agreed content again, written over another history: a second leaf, same snapshot.
      var elsewhere = item
      elsewhere.name = "Elsewhere"
      let other = try here.editInMirror(.record(elsewhere.record), over: [])
      let twin = try here.editInMirror(first.snapshot, over: [first.id, other.id])
      #expect(twin.hash == first.hash && twin.id != first.id)
      let edited = try here.editLocally(item.id) { $0.quantity = 3 }
      let report = try here.pass()
      #expect(report.rows[.merged] == 1, "\(report.rows)")
      let exported = here.mirror.content.versions(withSnapshot: edited.record.snapshotHash, of: key)
      #expect(exported.contains { $0.parents == [first.id] }, "the edit, over the version it saw")
      let side = here.mirror.content.side(for: key)
      #expect(side.leaves.count == 1 && side.winner?.parents.contains(twin.id) == true)
      #expect(here.localItem(item.id)?.quantity == 3 && here.localItem(item.id)?.name == item.name)
      #expect(here.openConflicts.isEmpty)
    }
  }

  @Test func aDeletionNamesEveryCurrentLeaf() throws {
    try withTemporaryFolder { folder in
      let here = try TwoStores(folder)
      let item = try here.addLocally(tube())
      try here.pass()
      let key = RecordKey(model: "item", id: item.id)
      let agreed = try #require(here.mirror.content.side(for: key).winner)
      try here.deleteLocally(item.id)
      try here.pass()
      let side = here.mirror.content.side(for: key)
      #expect(side.winner?.snapshot.isTombstone == true)
      #expect(side.winner?.parents.contains(agreed.id) == true)
      #expect(side.leaves.count == 1)
    }
  }
}
