import StashBase
public import StashModel

/// The changes one save will write, built against the store's current content.
///
/// Nothing here touches the disk or the content: the store writes the changes as one
/// transaction and applies them only once they are durable, so a failed save leaves no trace
/// (a delete is never half-done, and a tombstone it was replacing stays as it was).
public struct LocalTransaction: Sendable {
  /// The changes, in order.
  ///
  /// An inserted or replaced row's snapshot hash is computed here, for all of them at once on
  /// every core (a second device's first pass inserts 100,000 rows), unless the caller gave
  /// it: read it once, when the transaction is complete. When every hash was given (a
  /// reconcile pass's changes), they are the recorded changes themselves, not a copy.
  public var changes: [LocalChange] {
    guard !unhashed.isEmpty else { return recorded }
    let recorded = self.recorded
    let unhashed = self.unhashed
    let hashes = Parallel.map(count: unhashed.count) { index -> SnapshotHash? in
      guard case .putRow(_, let record, _) = recorded[unhashed[index]] else { return nil }
      return record.snapshotHash
    }
    var changes = recorded
    for (index, hash) in zip(unhashed, hashes) {
      guard case .putRow(let row, let record, _) = changes[index], let hash else { continue }
      changes[index] = .putRow(row, record, hash)
    }
    return changes
  }
  /// The changes; a row whose hash is still to compute holds ``placeholder`` until
  /// ``changes`` computes it.
  private var recorded: [LocalChange] = []
  /// Where in ``recorded`` the rows whose hash is still to compute are.
  private var unhashed: [Int] = []
  /// The hash a row holds in ``recorded`` until ``changes`` computes its own.
  private static let placeholder = SnapshotHash(
    digest: SHA256Digest(bytes: [UInt8](repeating: 0, count: 32))!)
  private var nextRow: RowID
  private let schemas: SchemaRegistry

  init(nextRow: RowID, schemas: SchemaRegistry) {
    self.nextRow = nextRow
    self.schemas = schemas
  }

  /// Adds a new row holding `record`.
  ///
  /// - Parameters:
  ///   - record: The record.
  ///   - hash: Its snapshot hash when this process already computed it from a record with
  ///     the same synced fields, or checked it against one (the reconciler passes the hash
  ///     of the mirror version it copies, checked this run); `nil` to compute it here. The
  ///     row is stored with this hash: never pass one read from disk unchecked.
  /// - Returns: The new row's id.
  /// - Throws: ``ModelError`` when the record's model is not registered with this store.
  @discardableResult
  public mutating func insert(
    _ record: Record, hash: SnapshotHash? = nil
  ) throws(ModelError) -> RowID {
    try checkRegistered(record)
    guard RowID.isValid(nextRow.rawValue) else {
      throw ModelError(
        "The store has used every row number up to \(RowID.maximum); export the items and "
          + "import them into a new folder")
    }
    let row = nextRow
    nextRow = RowID(row.rawValue + 1)
    recordRow(row, record, hash: hash)
    return row
  }

  /// Replaces the record held by an existing row.
  ///
  /// - Parameters:
  ///   - row: The row.
  ///   - record: Its new record.
  ///   - hash: The record's snapshot hash, as ``insert(_:hash:)`` takes it; `nil` to compute it.
  /// - Throws: ``ModelError`` when the record's model is not registered with this store.
  public mutating func replace(
    _ row: RowID, with record: Record, hash: SnapshotHash? = nil
  ) throws(ModelError) {
    try checkRegistered(record)
    recordRow(row, record, hash: hash)
  }

  /// Records `row` holding `record`, with its hash when given.
  private mutating func recordRow(_ row: RowID, _ record: Record, hash: SnapshotHash?) {
    if hash == nil { unhashed.append(recorded.count) }
    recorded.append(.putRow(row, record, hash ?? Self.placeholder))
  }

  /// Makes room for `count` changes in all (a pass knows how many it records).
  public mutating func reserveCapacity(_ count: Int) {
    recorded.reserveCapacity(count)
  }

  /// Deletes a row explicitly: its tombstone first, then the row, in this one transaction.
  ///
  /// - Parameters:
  ///   - row: The row to delete.
  ///   - time: The deletion time the tombstone records.
  /// - Returns: The tombstone.
  @discardableResult
  public mutating func delete(_ row: StoredRow, at time: Timestamp) -> Tombstone {
    let tombstone = Tombstone(
      model: row.record.model, id: row.record.id, deletedAt: time, deletedHash: row.hash)
    recorded.append(.putTombstone(tombstone))
    recorded.append(.removeRow(row.row))
    return tombstone
  }

  /// Removes a row without a tombstone (only the reconciler does this, when it applies a
  /// tombstone that arrived: it writes that tombstone itself).
  public mutating func removeRow(_ row: RowID) {
    recorded.append(.removeRow(row))
  }

  /// Writes or replaces the tombstone of its key.
  public mutating func putTombstone(_ tombstone: Tombstone) {
    recorded.append(.putTombstone(tombstone))
  }

  /// Removes the tombstone of `key`.
  public mutating func removeTombstone(_ key: RecordKey) {
    recorded.append(.removeTombstone(key))
  }

  /// Sets (or, with `nil`, forgets) the checkpoint of `key`.
  public mutating func setCheckpoint(_ key: RecordKey, to checkpoint: Checkpoint?) {
    recorded.append(checkpoint.map { .putCheckpoint(key, $0) } ?? .removeCheckpoint(key))
  }

  /// Forgets every checkpoint and binds the set to `mirror`.
  public mutating func bindCheckpoints(to mirror: StoreID?) {
    recorded.append(.bindCheckpoints(mirror))
  }

  /// Records or updates a conflict.
  public mutating func put(_ conflict: SyncConflict) {
    recorded.append(.putConflict(conflict))
  }

  /// Records or updates a diagnostic.
  public mutating func put(_ diagnostic: Diagnostic) {
    recorded.append(.putDiagnostic(diagnostic))
  }

  /// Removes a diagnostic.
  public mutating func removeDiagnostic(_ key: RecordKey, store: Diagnostic.Store) {
    recorded.append(.removeDiagnostic(key, store))
  }

  /// Whether nothing was recorded (a save of it writes nothing).
  public var isEmpty: Bool { recorded.isEmpty }

  /// Replaces the device's settings.
  public mutating func setSettings(_ settings: DeviceSettings) {
    recorded.append(.putSettings(settings))
  }

  /// The keys of the records whose rows or tombstones `changes` touch.
  static func changedKeys(of changes: [LocalChange]) -> Set<RecordKey> {
    // Into a set made once for all of them, not through a list of them first.
    func hasKey(_ change: LocalChange) -> Bool {
      switch change {
      case .putRow, .putTombstone, .removeTombstone: true
      default: false
      }
    }
    var keys = Set<RecordKey>(minimumCapacity: changes.reduce(0) { $0 + (hasKey($1) ? 1 : 0) })
    for change in changes where hasKey(change) {
      if let key = change.key { keys.insert(key) }
    }
    return keys
  }

  /// Checks that the record's model is registered with its fields, passes the model's checks
  /// (the same ones opening applies, so that nothing saved is set aside when read again), and
  /// is no larger than ``RecordLimits/maximumRecordBytes``.
  private func checkRegistered(_ record: Record) throws(ModelError) {
    let schema = try schemas.schema(for: record.model)
    guard schema == record.schema else {
      throw ModelError("Model '\(record.model)' is registered with other fields")
    }
    try schema.validate(record)
    if RecordLimits.certainlyFits(record) { return }  // most records: no JSON written to measure
    let size = RecordLimits.size(of: record)
    guard size <= RecordLimits.maximumRecordBytes else {
      throw ModelError(
        "The \(record.model) '\(record.id)' would take \(size) bytes, more than the "
          + "\(RecordLimits.maximumRecordBytes) a record may; shorten its longest field")
    }
  }
}
