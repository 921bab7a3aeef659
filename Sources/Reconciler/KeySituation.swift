public import LocalStore
public import MirrorStore
public import StashModel

/// Everything the decision looks at for one record: what the local store holds, what the
/// mirror shows, and what the two last agreed on.
public struct KeySituation: Sendable {
  /// The record.
  public let key: RecordKey
  /// The local rows carrying the key (more than one is a duplicate).
  public let localRows: [StoredRow]
  /// The local tombstone, if any.
  public let localTombstone: Tombstone?
  /// The mirror's leaves, winner first.
  public let mirror: MirrorSide
  /// The checkpoint (empty when the checkpoints belong to another mirror).
  public let checkpoint: Checkpoint?
  /// Whether the mirror's winner descends from the checkpoint in the version graph.
  public let mirrorDescendsFromCheckpoint: Bool

  /// A situation.
  public init(
    key: RecordKey, localRows: [StoredRow], localTombstone: Tombstone?, mirror: MirrorSide,
    checkpoint: Checkpoint?, mirrorDescendsFromCheckpoint: Bool = false
  ) {
    self.key = key
    self.localRows = localRows
    self.localTombstone = localTombstone
    self.mirror = mirror
    self.checkpoint = checkpoint
    self.mirrorDescendsFromCheckpoint = mirrorDescendsFromCheckpoint
  }

  /// The local side as the table names it. A live row takes precedence over a tombstone left
  /// beside it (possible only after deleting one of two duplicate rows): the live data is what
  /// must not be lost.
  var local: LocalState {
    if let row = localRows.first { return .live(row) }
    if let tombstone = localTombstone { return .deleted(tombstone) }
    return .absent
  }

  /// The mirror's row as the table names it: its winning leaf.
  var mirrorRow: MirrorState {
    guard let winner = mirror.winner else { return .absent }
    if let tombstone = winner.snapshot.tombstone { return .deleted(tombstone, winner) }
    return .live(winner.snapshot.record!, winner)
  }
}

/// L, Lt or ∅.
enum LocalState {
  case live(StoredRow)
  case deleted(Tombstone)
  case absent
}

/// M, Mt or ∅.
enum MirrorState {
  case live(Record, MirrorVersion)
  case deleted(Tombstone, MirrorVersion)
  case absent
}
