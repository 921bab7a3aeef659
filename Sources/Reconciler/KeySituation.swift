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
  /// Every version of the record the mirror holds (its graph), by id.
  public let versions: RecordVersions

  /// A situation.
  public init(
    key: RecordKey, localRows: [StoredRow], localTombstone: Tombstone?, mirror: MirrorSide,
    checkpoint: Checkpoint?, versions: RecordVersions = [:]
  ) {
    self.key = key
    self.localRows = localRows
    self.localTombstone = localTombstone
    self.mirror = mirror
    self.checkpoint = checkpoint
    var graph = versions
    for leaf in mirror.leaves where graph[leaf.id] == nil { graph.add(leaf) }
    self.versions = graph
  }

  /// The version the local side derives from: the checkpoint's, or (for a checkpoint written
  /// before versions were named) the one version holding its hash; none without a checkpoint,
  /// or when several versions hold that hash (equal snapshots at different points of the
  /// history: naming the wrong one would claim changes this device never saw, so the local
  /// side is written as a root and merges two-way, which can only add conflicts).
  var derivation: Set<VersionID> {
    guard let checkpoint else { return [] }
    if let version = checkpoint.version, versions[version]?.hash == checkpoint.hash {
      return [version]
    }
    let holding = versions.values.filter { $0.hash == checkpoint.hash }
    return holding.count == 1 ? [holding[0].id] : []
  }

  /// The local side as the table names it. A live row takes precedence over a tombstone left
  /// beside it (possible only after deleting one of two duplicate rows): the live data is what
  /// must not be lost.
  var local: LocalState {
    if let row = localRows.first { return .live(row) }
    if let tombstone = localTombstone { return .deleted(tombstone) }
    return .absent
  }

}

/// L, Lt or ∅.
enum LocalState {
  case live(StoredRow)
  case deleted(Tombstone)
  case absent
}
