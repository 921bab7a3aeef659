/// The explicit record of a deletion: which record, when, and which version was deleted.
///
/// A missing row is never a deletion; only a tombstone deletes on another side, and only
/// when the row there is still the deleted version (or unedited since the last agreement).
public struct Tombstone: Hashable, Sendable, CustomStringConvertible {
  /// The deleted record's model.
  public let model: String
  /// The deleted record's id.
  public let id: RecordID
  /// When it was deleted.
  public let deletedAt: Timestamp
  /// The snapshot hash of the version that was deleted.
  public let deletedHash: SnapshotHash

  /// A tombstone for a deletion.
  public init(model: String, id: RecordID, deletedAt: Timestamp, deletedHash: SnapshotHash) {
    self.model = model
    self.id = id
    self.deletedAt = deletedAt
    self.deletedHash = deletedHash
  }

  /// The tombstone for deleting `record` at `time`.
  public init(deleting record: Record, at time: Timestamp) {
    self.init(model: record.model, id: record.id, deletedAt: time, deletedHash: record.snapshotHash)
  }

  /// The key of the deleted record.
  public var key: RecordKey { RecordKey(model: model, id: id) }

  /// The tombstone's own hash: SHA-256 of its canonical encoding.
  public var hash: SnapshotHash { SnapshotHash(of: self) }

  public var description: String { "tombstone \(model) \(id) of \(deletedHash.short)" }
}

/// A version of a record as the stores and the transport exchange it: live or deleted.
public enum Snapshot: Hashable, Sendable, CustomStringConvertible {
  /// A live record.
  case record(Record)
  /// A deletion. Boxed: a tombstone inline (72 bytes) would make every snapshot, and every
  /// mirror version, 40 bytes larger than a record needs, and most snapshots are records.
  indirect case tombstone(Tombstone)

  /// The key of the record this snapshot is a version of.
  public var key: RecordKey {
    switch self {
    case .record(let record): record.key
    case .tombstone(let tombstone): tombstone.key
    }
  }

  /// The snapshot hash of the record, or the tombstone's own hash.
  public var hash: SnapshotHash {
    switch self {
    case .record(let record): record.snapshotHash
    case .tombstone(let tombstone): tombstone.hash
    }
  }

  /// Whether this is a deletion.
  public var isTombstone: Bool {
    if case .tombstone = self { return true }
    return false
  }

  /// The live record, or `nil` for a tombstone.
  public var record: Record? {
    if case .record(let record) = self { return record }
    return nil
  }

  /// The tombstone, or `nil` for a live record.
  public var tombstone: Tombstone? {
    if case .tombstone(let tombstone) = self { return tombstone }
    return nil
  }

  public var description: String {
    switch self {
    case .record(let record): "\(record) \(record.snapshotHash.short)"
    case .tombstone(let tombstone): tombstone.description
    }
  }
}
