public import StashModel

/// Which row of DESIGN.md's decision table applied to a record.
public enum TableRow: String, Hashable, Sendable, CaseIterable, Comparable {
  case duplicate = "0"
  case agree = "1"
  case applyMirrorEdit = "2"
  case copyLocalEdit = "3"
  case bothEdited = "4"
  case localOnlyInsert = "5"
  case cloudOnlyInsert = "6"
  case missingInMirror = "7"
  case missingHere = "8"
  case deletionToMirror = "9"
  /// Not in DESIGN.md's table: a local deletion both sides agreed on, replaced in the mirror
  /// by a version that descends from it (a resolution or a deliberate restore elsewhere).
  case restoredInMirror = "9b"
  case deletedHereEditedThere = "10"
  case deletionToLocal = "11"
  case editedHereDeletedThere = "12"
  /// A record created again here after a deletion both sides agreed on (the same derived
  /// id): a later edit of the same history, copied over the tombstone.
  case recreatedHere = "12b"
  case bothDeleted = "13"
  case deletionTravels = "14"
  case keepMirrorTombstone = "15"
  /// The mirror shows several concurrent versions that do not merge.
  case concurrentVersions = "leaves"
  /// Concurrent versions merged field by field (where row 4 or several leaves would have been
  /// a conflict).
  case merged = "merge"
  /// Concurrent versions wait: one of them names a version that has not arrived yet (rule 3).
  case waiting = "wait"
  /// Nothing on either side (at most a stale checkpoint).
  case nothing = "-"

  public static func < (lhs: TableRow, rhs: TableRow) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// One thing a decision does. Applying a pass turns effects into store changes.
public enum Effect: Hashable, Sendable {
  /// C := this.
  case setCheckpoint(Checkpoint)
  /// Write the mirror's record to the local store (replacing the one live row, or inserting
  /// one); device-local fields of the replaced row are kept.
  case writeLocal(Record)
  /// Remove the local tombstone (the record is live again).
  case removeLocalTombstone
  /// Write this tombstone locally and remove the live row, in one transaction.
  case deleteLocal(Tombstone)
  /// Write (or replace) the local tombstone; there is no live row.
  case putLocalTombstone(Tombstone)
  /// Write a new version to the mirror with these parents; `version` is its id, which the
  /// version graph derived from the snapshot's hash and the parents.
  case copyToMirror(Snapshot, parents: Set<VersionID>, version: VersionID)
  /// Keep every side in a conflict (recorded once per key and set of sides), with the fields
  /// in dispute.
  case recordConflict(ConflictKind, [ConflictSide], fields: [String])
  /// The sides agree now: settle the key's open conflicts.
  case settleConflicts
  /// Concurrent versions merged into the version with this hash: keep every side in a
  /// resolved record of kind `merged`, for history and audit.
  case recordMerge([ConflictSide], result: SnapshotHash)
  /// Two or more local rows carry the key: note it and touch nothing else.
  case recordDuplicate(rows: Int)
}

/// The decision for one record: the table row and what it does.
public struct Decision: Hashable, Sendable {
  /// The row that applied.
  public let row: TableRow
  /// What it does, in order.
  public let effects: [Effect]

  init(_ row: TableRow, _ effects: [Effect]) {
    self.row = row
    self.effects = effects
  }
}
