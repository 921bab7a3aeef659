import LocalStore
import MirrorStore
public import StashModel

/// DESIGN.md's decision table as code: a pure function of one record's situation.
///
/// Hashes are the ones stored with rows and versions, never recomputed here: a pass over a
/// large store looks at every record, and hashing each would cost more than deciding.
///
/// L = the live local row, Lt = the local tombstone, M / Mt = the mirror's winning leaf (live /
/// tombstone), C = the checkpoint, h() = the snapshot hash. Each `case` below is one row; the
/// row number is in the returned ``Decision``. Effects that would change nothing (a checkpoint
/// already set) are left out, so a second pass over unchanged stores writes nothing.
public enum DecisionTable {
  /// Decides what to do with one record.
  ///
  /// - Parameters:
  ///   - situation: Both sides and the checkpoint.
  ///   - merge: How concurrent live sides merge (``CounterMerge/merge(_:)``; tests pass a
  ///     weakened one to show that the random histories catch it).
  /// - Returns: The table row and its effects.
  public static func decide(
    _ situation: KeySituation, merge: CounterMerge.Strategy = CounterMerge.merge
  ) -> Decision {
    let c = situation.checkpoint
    // Row 0: two rows with one id: note it, touch nothing.
    if situation.localRows.count > 1 {
      return Decision(.duplicate, [.recordDuplicate(rows: situation.localRows.count)])
    }
    if situation.mirror.isConcurrent { return concurrent(situation, merge: merge) }

    switch (situation.local, situation.mirrorRow) {
    case (.live(let l), .live(let m, let version)):
      if l.hash == version.hash {  // 1: agree
        return Decision(.agree, checkpoint(.record(l.hash), over: c) + [.settleConflicts])
      }
      if l.hash == c?.hash {  // 2: only the mirror changed; apply it even if its updatedAt is older
        return Decision(
          .applyMirrorEdit,
          [.writeLocal(m)] + checkpoint(.record(version.hash), over: c) + [.settleConflicts])
      }
      if version.hash == c?.hash {  // 3: only the local row changed; copy it over every leaf C
        return Decision(
          .copyLocalEdit,
          [.copyToMirror(.record(l.record), parents: situation.mirror.leafIDs)]
            + checkpoint(.record(l.hash), over: c) + [.settleConflicts])
      }
      // 4: both changed (C or ∅): their counters may merge; otherwise keep both.
      let sides = [localSide(.record(l.record)), mirrorSide(version)]
      switch merge([l.record, m]) {
      case .merged(let merged):
        return mergeDecision(
          merged, sides: sides, over: situation.mirror.leafIDs.union([VersionID(naming: l.hash)]),
          local: l, checkpoint: c)
      case .belowZero:
        return Decision(.bothEdited, [.recordConflict(.belowZero, sides)])
      case .notMergeable:
        return Decision(.bothEdited, [.recordConflict(.bothEdited, sides)])
      }

    case (.live(let l), .absent):
      if c == nil {  // 5: local-only insert
        return Decision(
          .localOnlyInsert,
          [
            .copyToMirror(.record(l.record), parents: []), .setCheckpoint(.record(l.hash)),
            .settleConflicts,
          ])
      }
      // 7: absence is not deletion: change nothing, keep a conflict whose mirror side is absent.
      return Decision(
        .missingInMirror,
        [
          .recordConflict(
            .missingInMirror,
            [localSide(.record(l.record)), ConflictSide(origin: .mirror, snapshot: nil)])
        ])

    case (.absent, .live(let m, let version)):
      if c == nil {  // 6: cloud-only insert
        return Decision(
          .cloudOnlyInsert,
          [.writeLocal(m), .setCheckpoint(.record(version.hash)), .settleConflicts])
      }
      // 8: absence is not deletion: change nothing, keep a conflict whose local side is absent.
      return Decision(
        .missingHere,
        [
          .recordConflict(
            .missingHere, [ConflictSide(origin: .local, snapshot: nil), mirrorSide(version)])
        ])

    case (.deleted(let lt), .live(let m, let version)):
      let mirrorHash = version.hash
      if mirrorHash == lt.deletedHash || mirrorHash == c?.hash {  // 9: the deletion travels
        return Decision(
          .deletionToMirror,
          [
            .copyToMirror(
              .tombstone(lt),
              parents: situation.mirror.leafIDs.union([VersionID(naming: lt.deletedHash)]))
          ]
            + checkpoint(.tombstone(lt.hash), over: c) + [.settleConflicts])
      }
      if c == .tombstone(lt.hash) && situation.mirrorDescendsFromCheckpoint {
        // 9b: the mirror's version replaces the deletion both sides agreed on (a resolution
        // made elsewhere): it is a later edit of the same history, not a concurrent one.
        return Decision(
          .restoredInMirror,
          [.removeLocalTombstone, .writeLocal(m)] + checkpoint(.record(mirrorHash), over: c)
            + [.settleConflicts])
      }
      // 10: deleted here, edited there: the edited row stays, both are kept.
      return Decision(
        .deletedHereEditedThere,
        [
          .recordConflict(
            .deletedHereEditedThere, [localSide(.tombstone(lt)), mirrorSide(version)])
        ])

    case (.live(let l), .deleted(let mt, let version)):
      if l.hash == mt.deletedHash || l.hash == c?.hash {  // 11: the deletion arrives
        return Decision(
          .deletionToLocal,
          [.deleteLocal(mt)] + checkpoint(.tombstone(mt.hash), over: c) + [.settleConflicts])
      }
      if c == .tombstone(mt.hash) {
        // 12b: created again here after a deletion both sides agreed on (a derived id, such
        // as a meter paired again): the mirror has not moved since, so only this side did.
        return Decision(
          .recreatedHere,
          [
            .removeLocalTombstone,
            .copyToMirror(.record(l.record), parents: situation.mirror.leafIDs),
          ] + checkpoint(.record(l.hash), over: c) + [.settleConflicts])
      }
      // 12: edited here, deleted there: the edited row stays, both are kept.
      return Decision(
        .editedHereDeletedThere,
        [
          .recordConflict(
            .editedHereDeletedThere, [localSide(.record(l.record)), mirrorSide(version)])
        ])

    case (.deleted(let lt), .deleted(let mt, _)):
      // 13: both deleted: agree, and keep the mirror's tombstone so every device holds the
      // same one.
      let adopt: [Effect] = lt.hash == mt.hash ? [] : [.putLocalTombstone(mt)]
      return Decision(
        .bothDeleted, adopt + checkpoint(.tombstone(mt.hash), over: c) + [.settleConflicts])

    case (.deleted(let lt), .absent):
      // 14: explicit deletions travel.
      return Decision(
        .deletionTravels,
        [.copyToMirror(.tombstone(lt), parents: [VersionID(naming: lt.deletedHash)])]
          + checkpoint(.tombstone(lt.hash), over: c) + [.settleConflicts])

    case (.absent, .deleted(let mt, _)):
      // 15: keep the tombstone locally.
      return Decision(
        .keepMirrorTombstone,
        [.putLocalTombstone(mt)] + checkpoint(.tombstone(mt.hash), over: c) + [.settleConflicts])

    case (.absent, .absent):
      return Decision(.nothing, [])
    }
  }

  /// Several concurrent versions in the mirror (leaves with different snapshots).
  ///
  /// They merge, with the local row as one more side when it has an edit of its own (a row
  /// equal to C is an ancestor, not a side), if the local side is live or there is nothing
  /// local at all. Otherwise one conflict holds every leaf and the local row (or its absence,
  /// or its tombstone when it was deleted here after the last agreement). While that conflict
  /// is open the local row is **never** replaced by the mirror's winner, even when h(L) = C:
  /// adopting a winner that does not descend from this device's own last state lowers its own
  /// counter tallies, and a later merge then swallows one of its moves (DESIGN, F1 of the
  /// model). Only a record new here (no row, no tombstone, no checkpoint) takes the winner.
  static func concurrent(_ situation: KeySituation, merge: CounterMerge.Strategy) -> Decision {
    let c = situation.checkpoint
    let leaves = situation.mirror.distinctLeaves
    let leafHashes = Set(leaves.map(\.hash))
    let leafIDs = situation.mirror.leafIDs
    let winner = leaves[0]
    let live: StoredRow? = if case .live(let row) = situation.local { row } else { nil }
    // The leaf holding the local row (if one does) is this device's side.
    var sides = leaves.map { leaf in
      ConflictSide(
        origin: leaf.hash == live?.hash ? .local : .mirror, snapshot: leaf.snapshot,
        author: leaf.author)
    }
    let isNewHere: Bool = if case .absent = situation.local { c == nil } else { false }
    var kind = ConflictKind.concurrentVersions
    if live != nil || isNewHere, leaves.allSatisfy({ !$0.snapshot.isTombstone }) {
      var records = leaves.compactMap(\.snapshot.record)
      var parents = leafIDs
      var mergeSides = sides
      if let live, !leafHashes.contains(live.hash), live.hash != c?.hash {
        records.append(live.record)
        parents.insert(VersionID(naming: live.hash))
        mergeSides.insert(localSide(.record(live.record)), at: 0)
      }
      switch merge(records) {
      case .merged(let merged):
        return mergeDecision(merged, sides: mergeSides, over: parents, local: live, checkpoint: c)
      case .belowZero: kind = .belowZero
      case .notMergeable: break
      }
    }
    var effects = [Effect]()
    switch situation.local {
    case .live(let l):
      if !leafHashes.contains(l.hash) { sides.insert(localSide(.record(l.record)), at: 0) }
    case .deleted(let lt):
      // A deletion here is never undone by a concurrent edit there: both are kept.
      if lt.hash != c?.hash && !leafHashes.contains(lt.hash) {
        sides.insert(localSide(.tombstone(lt)), at: 0)
      }
    case .absent:
      if c == nil, let record = winner.snapshot.record {
        effects += [.writeLocal(record), .setCheckpoint(.record(winner.hash))]
      } else if c != nil {
        sides.insert(ConflictSide(origin: .local, snapshot: nil), at: 0)
      }
    }
    return Decision(.concurrentVersions, [.recordConflict(kind, sides)] + effects)
  }

  /// The sides merged: the merged version goes to the mirror over `parents` and to the local
  /// store (unless the row already is it), C moves to it, open conflicts settle, and the sides
  /// are kept in a `merged` record.
  static func mergeDecision(
    _ merged: Record, sides: [ConflictSide], over parents: Set<VersionID>, local: StoredRow?,
    checkpoint c: Checkpoint?
  ) -> Decision {
    let hash = merged.snapshotHash
    var effects: [Effect] = [.copyToMirror(.record(merged), parents: parents)]
    if local?.hash != hash { effects.append(.writeLocal(merged)) }
    effects += checkpoint(.record(hash), over: c)
    effects += [.settleConflicts, .recordMerge(sides, result: hash)]
    return Decision(.merged, effects)
  }

  /// `[.setCheckpoint(new)]`, or nothing when C is already `new`.
  static func checkpoint(_ new: Checkpoint, over current: Checkpoint?) -> [Effect] {
    current == new ? [] : [.setCheckpoint(new)]
  }

  static func localSide(_ snapshot: Snapshot) -> ConflictSide {
    ConflictSide(origin: .local, snapshot: snapshot)
  }

  static func mirrorSide(_ version: MirrorVersion) -> ConflictSide {
    ConflictSide(origin: .mirror, snapshot: version.snapshot, author: version.author)
  }
}
