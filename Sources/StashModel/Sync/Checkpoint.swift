/// What this device and the mirror last agreed on for one record: a version's hash, or a
/// tombstone's.
///
/// Checkpoints live only in the local store, one set per device, bound to one mirror's
/// ``StoreID``; they never travel.
public struct Checkpoint: Hashable, Sendable, CustomStringConvertible {
  /// The agreed snapshot's hash (a record's snapshot hash or a tombstone's own hash).
  public let hash: SnapshotHash
  /// Whether the agreed state is a deletion.
  public let isTombstone: Bool

  /// A checkpoint at a live version.
  public static func record(_ hash: SnapshotHash) -> Checkpoint {
    Checkpoint(hash: hash, isTombstone: false)
  }

  /// A checkpoint at a deletion.
  public static func tombstone(_ hash: SnapshotHash) -> Checkpoint {
    Checkpoint(hash: hash, isTombstone: true)
  }

  /// The checkpoint at a snapshot.
  public init(_ snapshot: Snapshot) {
    self.init(hash: snapshot.hash, isTombstone: snapshot.isTombstone)
  }

  /// A checkpoint with the given hash and kind.
  public init(hash: SnapshotHash, isTombstone: Bool) {
    self.hash = hash
    self.isTombstone = isTombstone
  }

  public var description: String { (isTombstone ? "tombstone " : "") + hash.short }
}
