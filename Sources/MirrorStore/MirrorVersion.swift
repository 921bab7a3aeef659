public import StashModel

/// One version of a record in the mirror: a snapshot (live or tombstone), the versions it
/// replaces, and who wrote it.
///
/// Versions form a graph per record, over their ``id``s. The **leaves** are the versions no
/// other version names as a parent: one leaf is the record's current state; several are
/// concurrent edits (unless they all hold the same snapshot: that is agreement). The graph does
/// not depend on the order versions arrive in, nor on repeats.
public struct MirrorVersion: Hashable, Sendable, CustomStringConvertible {
  /// The record or tombstone.
  public internal(set) var snapshot: Snapshot
  /// The snapshot's hash (a record's snapshot hash, or the tombstone's own hash): what the
  /// reconciler compares with the local row and the checkpoint.
  public let hash: SnapshotHash
  /// The version's identity: derived from ``hash`` and ``parents`` (see ``VersionID``), or,
  /// for a format-1 version, its snapshot hash.
  public let id: VersionID
  /// The ids of the versions this one replaces.
  public internal(set) var parents: Set<VersionID>
  /// One more than the highest known parent's generation (1 for a version with none).
  public internal(set) var generation: Int64
  /// The device that wrote it.
  public let author: DeviceID
  /// When it was written.
  public let authoredAt: Timestamp

  /// A new version: its id is derived from its snapshot and parents.
  public init(
    snapshot: Snapshot, parents: Set<VersionID>, generation: Int64, author: DeviceID,
    authoredAt: Timestamp
  ) {
    let hash = snapshot.hash
    self.init(
      snapshot: snapshot, hash: hash, id: .derive(snapshot: hash, parents: parents),
      parents: parents, generation: generation, author: author, authoredAt: authoredAt)
  }

  /// A version with every property given (read back from a store line or a segment).
  init(
    snapshot: Snapshot, hash: SnapshotHash, id: VersionID, parents: Set<VersionID>,
    generation: Int64, author: DeviceID, authoredAt: Timestamp
  ) {
    self.snapshot = snapshot
    self.hash = hash
    self.id = id
    self.parents = parents
    self.generation = generation
    self.author = author
    self.authoredAt = authoredAt
  }

  /// The record this is a version of.
  public var key: RecordKey { snapshot.key }

  /// Whether this version was written in format 1, when a version's identity was its
  /// snapshot hash (its parents then name snapshot hashes too).
  public var isLegacy: Bool { id.digest == hash.digest }

  /// The version reference of this version.
  public var ref: VersionRef { VersionRef(key: key, id: id) }

  /// Whether this version wins over `other` when both are leaves: a live record over a
  /// tombstone, then the higher generation, then the larger snapshot hash, then the larger id.
  /// Deterministic, so every device picks the same winner.
  public func beats(_ other: MirrorVersion) -> Bool {
    let mine = (snapshot.isTombstone ? 0 : 1, generation, hash, id)
    let theirs = (other.snapshot.isTombstone ? 0 : 1, other.generation, other.hash, other.id)
    return mine > theirs
  }

  public var description: String {
    "\(snapshot) as \(id.short) gen \(generation) by \(author.rawValue.prefix(8))"
  }
}

/// A version named by its record and id.
public struct VersionRef: Hashable, Comparable, Sendable {
  /// The record.
  public let key: RecordKey
  /// The version's id.
  public let id: VersionID

  /// Names a version.
  public init(key: RecordKey, id: VersionID) {
    self.key = key
    self.id = id
  }

  public static func < (lhs: VersionRef, rhs: VersionRef) -> Bool {
    (lhs.key, lhs.id) < (rhs.key, rhs.id)
  }
}

/// What the mirror says about one record: its leaves and the winner among them.
public struct MirrorSide: Sendable {
  /// The versions nobody replaces, winner first.
  public let leaves: [MirrorVersion]

  /// A side with these leaves, winner first.
  public init(leaves: [MirrorVersion]) {
    self.leaves = leaves
  }

  /// The mirror's row: the winning leaf, or `nil` when the mirror has never seen the record.
  public var winner: MirrorVersion? { leaves.first }

  /// The leaves' ids.
  public var leafIDs: Set<VersionID> { Set(leaves.map(\.id)) }

  /// One leaf per distinct snapshot, winner first: several leaves holding one snapshot are
  /// one mirror row (they agree), not a conflict.
  public var distinctLeaves: [MirrorVersion] {
    var seen = Set<SnapshotHash>()
    return leaves.filter { seen.insert($0.hash).inserted }
  }

  /// Whether the mirror shows concurrent versions: leaves with different snapshots, not all
  /// deletions (several leaves that are all tombstones agree to delete, which is not a
  /// conflict).
  public var isConcurrent: Bool {
    guard leaves.count > 1 else { return false }
    let first = leaves[0].hash
    return leaves.contains { $0.hash != first } && !leaves.allSatisfy(\.snapshot.isTombstone)
  }
}
