/// What this device and the mirror last agreed on for one record: a version's hash, or a
/// tombstone's, and the version itself.
///
/// Checkpoints live only in the local store, one set per device, bound to one mirror's
/// ``StoreID``; they never travel. The version is what the local row derives from: a local
/// change is written to the mirror as its child, and merges find their common ancestors from
/// it (DESIGN, "Merging concurrent versions", rule 1). A checkpoint written before format 4
/// of the local store names no version; the reconciler then takes every version holding its
/// hash, and names the version at the next pass.
public struct Checkpoint: Hashable, Sendable, CustomStringConvertible {
  /// The agreed snapshot's hash (a record's snapshot hash or a tombstone's own hash).
  public let hash: SnapshotHash
  /// Whether the agreed state is a deletion.
  public let isTombstone: Bool
  /// The mirror version the local row (or tombstone) derives from, when known.
  public let version: VersionID?

  /// A checkpoint at a live version.
  public static func record(_ hash: SnapshotHash, version: VersionID? = nil) -> Checkpoint {
    Checkpoint(hash: hash, isTombstone: false, version: version)
  }

  /// A checkpoint at a deletion.
  public static func tombstone(_ hash: SnapshotHash, version: VersionID? = nil) -> Checkpoint {
    Checkpoint(hash: hash, isTombstone: true, version: version)
  }

  /// The checkpoint at a snapshot, held by `version` when given.
  public init(_ snapshot: Snapshot, version: VersionID? = nil) {
    self.init(hash: snapshot.hash, isTombstone: snapshot.isTombstone, version: version)
  }

  /// A checkpoint with the given hash, kind and version.
  public init(hash: SnapshotHash, isTombstone: Bool, version: VersionID? = nil) {
    self.hash = hash
    self.isTombstone = isTombstone
    self.version = version
  }

  public var description: String {
    (isTombstone ? "tombstone " : "") + hash.short + (version.map { " at \($0.short)" } ?? "")
  }
}
