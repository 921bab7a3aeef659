import LocalStore
import MirrorStore
import StashModel

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
  /// - Parameter situation: Both sides and the checkpoint.
  /// - Returns: The table row and its effects.
  public static func decide(_ situation: KeySituation) -> Decision {
    let c = situation.checkpoint
    // Row 0: two rows with one id: note it, touch nothing.
    if situation.localRows.count > 1 {
      return Decision(.duplicate, [.recordDuplicate(rows: situation.localRows.count)])
    }
    if situation.mirror.isConcurrent { return concurrent(situation) }

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
      // 4: both changed (C or ∅): keep both.
      return Decision(
        .bothEdited,
        [.recordConflict(.bothEdited, [localSide(.record(l.record)), mirrorSide(version)])])

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

  /// Several concurrent versions in the mirror: one conflict holding every leaf (and the local
  /// row when it has an edit of its own). The mirror's winner is adopted locally only when the
  /// local row has no edit of its own (h(L) = C, or L is one of the leaves), or when the record
  /// is new here (no row, no tombstone, no checkpoint).
  static func concurrent(_ situation: KeySituation) -> Decision {
    let c = situation.checkpoint
    let leaves = situation.mirror.leaves
    let leafHashes = Set(leaves.map(\.hash))
    let winner = leaves[0]
    var sides = situation.mirror.distinctLeaves.map(mirrorSide)
    var effects = [Effect]()
    func unedited(_ hash: SnapshotHash) -> Bool { hash == c?.hash || leafHashes.contains(hash) }

    switch situation.local {
    case .live(let l):
      if unedited(l.hash) {
        if let record = winner.snapshot.record, winner.hash != l.hash {
          effects.append(.writeLocal(record))
        }
        effects += checkpoint(Checkpoint(winner.snapshot), over: c)
      } else {
        sides.insert(localSide(.record(l.record)), at: 0)
      }
    case .deleted(let lt):
      // A deletion here is never undone by a concurrent edit there: both are kept.
      if !unedited(lt.hash) { sides.insert(localSide(.tombstone(lt)), at: 0) }
    case .absent:
      if c == nil, let record = winner.snapshot.record {
        effects += [.writeLocal(record), .setCheckpoint(.record(winner.hash))]
      } else if c != nil {
        sides.insert(ConflictSide(origin: .local, snapshot: nil), at: 0)
      }
    }
    return Decision(.concurrentVersions, [.recordConflict(.concurrentVersions, sides)] + effects)
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
