import Foundation
import LocalStore
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import Reconciler

/// The records a full pass decides (`Plan.keysNeedingADecision`): the keys with a local row
/// or tombstone are listed as they are met, and a key absent here from the first table that
/// names it, without a set (issue 26, item 5: a first sync's 100,000 keys, and an import's,
/// went through one). The list must be what the set gave: every key that is not settled,
/// once, in key order.
@Suite struct PendingKeysTests {
  @Test func everyUnsettledKeyOnceInOrder() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      var kept = [Item]()
      for index in 0..<40 { kept.append(try stores.addLocally(tube("tube \(index)"))) }
      _ = try stores.pass()  // every record settled: row, leaf and checkpoint agree
      let edited = try stores.editLocally(kept[3].id) { $0.quantity = 1 }
      try stores.local.update("the delete") { content, transaction in
        transaction.delete(content.row(for: kept[5].record.key)!, at: epoch)
      }
      // Records only the mirror holds (another device's, not imported here yet).
      let mirrorOnly = try (0..<3).map {
        try stores.editInMirror(.record(tube("theirs \($0)").record)).key
      }
      let local = stores.local.content
      let mirror = stores.mirror.content
      // Keys absent here, each named by several tables (the checkpoints, the mirror, open
      // conflicts, diagnostics); a key present here with a diagnostic.
      let absent = (0..<6).map { _ in RecordKey(model: "item", id: RecordID.make()) }
      let conflictOnly = RecordKey(model: "item", id: RecordID.make())
      var checkpoints = local.checkpoints
      let hash = edited.record.snapshotHash
      for key in absent.prefix(4) + [mirrorOnly[0]] {
        checkpoints[key] = Checkpoint(hash: hash, isTombstone: false)
      }
      var diagnostics = [RecordKey: Diagnostic]()
      for key in absent.suffix(4) + [kept[9].record.key, mirrorOnly[1], conflictOnly] {
        diagnostics[key] = Diagnostic(key: key, store: .local, rows: 2, noticedAt: epoch)
      }
      let openConflicts: [RecordKey: [SyncConflict]] = [
        absent[0]: [], mirrorOnly[1]: [], conflictOnly: [],
      ]
      let (pending, agreed, deleted) = Plan.keysNeedingADecision(
        local: local, mirror: mirror, checkpoints: checkpoints, openConflicts: openConflicts,
        diagnostics: diagnostics, tableAgrees: { _ in true })

      var expected = Set(absent + mirrorOnly + [conflictOnly])
      expected.formUnion([kept[3].record.key, kept[5].record.key, kept[9].record.key])
      #expect(pending.map(\.key) == expected.sorted(), "each key once, in key order")
      #expect(agreed == 37 && deleted == 0)
      // Each key with a row carries its place in the rows' table, so its rows are read
      // without finding it again; the others are found by key (and have no rows here).
      for candidate in pending {
        let hasRows = local.rowsByKey[candidate.key] != nil
        #expect((candidate.rowsAt >= 0) == hasRows, "\(candidate.key)")
        if hasRows { #expect(local.rowsByKey.keys[Int(candidate.rowsAt)] == candidate.key) }
        #expect(candidate.rows(in: local) == local.rows(for: candidate.key))
      }
    }
  }

  /// A place taken in one content is never trusted in another: the rows are found by key.
  @Test func aPlaceFromAnotherContentIsNotTrusted() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let items = try (0..<5).map { try stores.addLocally(tube("tube \($0)")) }
      let before = stores.local.content
      try stores.local.update("the delete") { content, transaction in
        transaction.delete(content.row(for: items[0].record.key)!, at: epoch)
      }
      let after = stores.local.content  // the last key moved into the first one's place
      for item in items {
        let key = item.record.key
        let candidate = Plan.Candidate(key: key, rowsAt: before.rowsByKey.position(of: key))
        #expect(candidate.rowsAt >= 0)
        #expect(candidate.rows(in: after) == after.rows(for: key), "\(key)")
        #expect(candidate.rows(in: before) == before.rows(for: key))
      }
      #expect(after.rows(for: items[0].record.key).isEmpty)
      let outside = Plan.Candidate(key: items[1].record.key, rowsAt: 1_000)
      #expect(outside.rows(in: after) == after.rows(for: items[1].record.key))
    }
  }
}
