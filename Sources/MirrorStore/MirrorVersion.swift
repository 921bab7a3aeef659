public import StashModel

/// One version of a record in the mirror: a snapshot (live or tombstone), the versions it
/// replaces, and who wrote it.
///
/// Versions form a graph per record. The **leaves** are the versions no other version names
/// as a parent: one leaf is the record's current state; several are concurrent edits. The
/// graph does not depend on the order versions arrive in, nor on repeats.
public struct MirrorVersion: Hashable, Sendable, CustomStringConvertible {
  /// The record or tombstone.
  public internal(set) var snapshot: Snapshot
  /// The snapshot's hash (a record's snapshot hash, or the tombstone's own hash).
  public let hash: SnapshotHash
  /// The hashes of the versions this one replaces.
  public internal(set) var parents: Set<SnapshotHash>
  /// One more than the highest known parent's generation (1 for a version with none).
  public internal(set) var generation: Int64
  /// The device that wrote it.
  public let author: DeviceID
  /// When it was written.
  public let authoredAt: Timestamp

  /// A version.
  public init(
    snapshot: Snapshot, parents: Set<SnapshotHash>, generation: Int64, author: DeviceID,
    authoredAt: Timestamp
  ) {
    self.init(
      snapshot: snapshot, hash: snapshot.hash, parents: parents, generation: generation,
      author: author, authoredAt: authoredAt)
  }

  /// A version whose hash is already known (read back from a checksummed store line).
  init(
    snapshot: Snapshot, hash: SnapshotHash, parents: Set<SnapshotHash>, generation: Int64,
    author: DeviceID, authoredAt: Timestamp
  ) {
    self.snapshot = snapshot
    self.hash = hash
    self.parents = parents
    self.generation = generation
    self.author = author
    self.authoredAt = authoredAt
  }

  /// The record this is a version of.
  public var key: RecordKey { snapshot.key }

  /// Whether this version wins over `other` when both are leaves: a live record over a
  /// tombstone, then the higher generation, then the larger hash. Deterministic, so every
  /// device picks the same winner.
  public func beats(_ other: MirrorVersion) -> Bool {
    let mine = (snapshot.isTombstone ? 0 : 1, generation, hash)
    let theirs = (other.snapshot.isTombstone ? 0 : 1, other.generation, other.hash)
    return mine > theirs
  }

  public var description: String {
    "\(snapshot) gen \(generation) by \(author.rawValue.prefix(8))"
  }
}

/// A version named by its record and hash.
public struct VersionRef: Hashable, Comparable, Sendable {
  /// The record.
  public let key: RecordKey
  /// The version's hash.
  public let hash: SnapshotHash

  /// Names a version.
  public init(key: RecordKey, hash: SnapshotHash) {
    self.key = key
    self.hash = hash
  }

  public static func < (lhs: VersionRef, rhs: VersionRef) -> Bool {
    (lhs.key, lhs.hash) < (rhs.key, rhs.hash)
  }
}

/// What the mirror says about one record: its leaves and the winner among them.
public struct MirrorSide: Sendable {
  /// The versions nobody replaces, winner first.
  public let leaves: [MirrorVersion]

  /// The mirror's row: the winning leaf, or `nil` when the mirror has never seen the record.
  public var winner: MirrorVersion? { leaves.first }

  /// Whether the mirror shows concurrent versions that are not all deletions (several leaves
  /// that are all tombstones agree to delete, which is not a conflict).
  public var isConcurrent: Bool {
    leaves.count > 1 && !leaves.allSatisfy(\.snapshot.isTombstone)
  }
}
