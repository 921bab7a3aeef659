import LocalStore
import MirrorStore
import StashModel

extension DecisionTable {
  /// The decision for a record that only one side has ever held, with no checkpoint: this
  /// device's live row and no version of it anywhere (row 5), or one version in the mirror
  /// and nothing here (row 6, or 15 for a tombstone). It is exactly what the version graph
  /// decides (``GraphDecision``), which debug builds check for every record decided this way;
  /// `nil` for every other situation.
  ///
  /// A first sync decides row 5 for every record, and a second device's import row 6: the
  /// graph built, searched and dropped for each cost about 11,000 instructions of a record's
  /// 200,000 (issue 26, item 5). Merge rules play no part: nothing merges here.
  static func oneSideOnly(_ situation: KeySituation) -> Decision? {
    guard situation.checkpoint == nil, situation.localTombstone == nil,
      situation.localRows.count <= 1
    else { return nil }
    let leaves = situation.mirror.leaves
    if let row = situation.localRows.first {
      guard leaves.isEmpty, situation.versions.isEmpty else { return nil }
      // Rule 1: the row is written into the graph as a root; it is the only leaf.
      let id = VersionID.derive(snapshot: row.hash, parents: [])
      return Decision(
        .localOnlyInsert,
        [
          .copyToMirror(.record(row.record), parents: [], version: id),
          .setCheckpoint(Checkpoint(hash: row.hash, isTombstone: false, version: id)),
          .settleConflicts,
        ])
    }
    // The one leaf, and no other version (a parent that has not arrived changes nothing: one
    // leaf is adopted whatever its ancestry).
    guard leaves.count == 1, situation.versions.count == 1,
      let version = situation.versions[leaves[0].id]
    else { return nil }
    let checkpoint = Checkpoint(
      hash: version.hash, isTombstone: version.snapshot.isTombstone, version: version.id)
    switch version.snapshot {
    case .record(let record):
      return Decision(
        .cloudOnlyInsert, [.writeLocal(record), .setCheckpoint(checkpoint), .settleConflicts])
    case .tombstone(let tombstone):
      return Decision(
        .keepMirrorTombstone,
        [.putLocalTombstone(tombstone), .setCheckpoint(checkpoint), .settleConflicts])
    }
  }
}
