import LocalStore
import MirrorStore
import StashModel

/// DESIGN.md's decision table as code: a pure function of one record's situation.
///
/// Hashes are the ones stored with rows and versions, never recomputed here: a pass over a
/// large store looks at every record, and hashing each would cost more than deciding.
///
/// The table works over the record's version graph (DESIGN, "Merging concurrent versions"):
/// 1. **Graph first.** A local row or tombstone that differs from the version it derives from
///    (the checkpoint's) is written to the mirror as that version's child, unless a leaf
///    already holds it; so every device sees the same leaves.
/// 2. **One leaf** (or several holding one snapshot, or only tombstones): adopt it.
/// 3. **Several leaves** wait while one of them names a version that has not arrived, then
///    merge field by field (``LeafFold``); what does not merge is a conflict holding every
///    leaf, recorded on every device that sees them, and the local row stays as it is.
///
/// Around the graph, the rows where one store has nothing stay as DESIGN's table has them:
/// absence is never deletion (rows 7 and 8). Effects that would change nothing (a checkpoint
/// already set) are left out, so a second pass over unchanged stores writes nothing.
public enum DecisionTable {
  /// Decides what to do with one record.
  ///
  /// - Parameters:
  ///   - situation: Both sides, the checkpoint and the record's version graph.
  ///   - rules: How concurrent versions merge (``MergeRules/design``; tests pass weakened
  ///     rules to show that the random histories catch them).
  /// - Returns: The table row and its effects.
  public static func decide(
    _ situation: KeySituation, rules: MergeRules = .design
  ) -> Decision {
    let c = situation.checkpoint
    // Row 0: two rows with one id: note it, touch nothing.
    if situation.localRows.count > 1 {
      return Decision(.duplicate, [.recordDuplicate(rows: situation.localRows.count)])
    }
    let leaves = situation.mirror.leaves
    switch situation.local {
    case .live(let l) where leaves.isEmpty && c != nil:
      // 7: absence is not deletion: change nothing, keep a conflict whose mirror side is absent.
      return Decision(
        .missingInMirror,
        [
          .recordConflict(
            .missingInMirror,
            [localSide(.record(l.record)), ConflictSide(origin: .mirror, snapshot: nil)],
            fields: [])
        ])
    case .absent where leaves.isEmpty:
      return Decision(.nothing, [])
    case .absent where c != nil:
      if leaves.allSatisfy(\.snapshot.isTombstone) { break }  // 15: the deletion arrives
      // 8: absence is not deletion: change nothing, keep a conflict whose local side is absent.
      let mirrorSides = situation.mirror.distinctLeaves.map(mirrorSide)
      return Decision(
        .missingHere,
        [
          .recordConflict(
            .missingHere, [ConflictSide(origin: .local, snapshot: nil)] + mirrorSides,
            fields: [])
        ])
    default:
      break
    }
    if let decision = oneSideOnly(situation) {
      assert(
        decision == GraphDecision(situation, rules: rules).decide(),
        "the graph decides \(situation.key) otherwise")
      return decision
    }
    return GraphDecision(situation, rules: rules).decide()
  }

  static func localSide(_ snapshot: Snapshot) -> ConflictSide {
    ConflictSide(origin: .local, snapshot: snapshot)
  }

  static func mirrorSide(_ version: MirrorVersion) -> ConflictSide {
    ConflictSide(origin: .mirror, snapshot: version.snapshot, author: version.author)
  }

  /// `[.setCheckpoint(new)]`, or nothing when C is already `new`.
  static func checkpoint(_ new: Checkpoint, over current: Checkpoint?) -> [Effect] {
    current == new ? [] : [.setCheckpoint(new)]
  }
}
