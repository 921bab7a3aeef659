import LocalStore
public import StashModel

/// Edits of many records, of several models, saved together by ``SyncFolder/write(_:)``: one
/// transaction of the local store, synchronized once, all or nothing.
///
/// Each edit is checked as a single save is (its model is the folder's, its schema's checks
/// pass) when it is made, and a refused one throws at once; what the body throws (that or its
/// own refusal) leaves the folder as it was. Reads see the transaction's own edits: a record
/// saved and then updated in one transaction is saved once, as updated.
public struct WriteTransaction {
  /// What this transaction did to a record, over what the store holds.
  private enum Pending {
    /// A row holds the record (a new row, or a replaced one).
    case row(RowID, Record)
    /// The record was deleted.
    case deleted
  }

  private let content: LocalContent
  private let folder: SyncFolder
  private let time: Timestamp
  var transaction: LocalTransaction
  private var pending: [RecordKey: Pending] = [:]

  init(content: LocalContent, transaction: LocalTransaction, folder: SyncFolder) {
    self.content = content
    self.transaction = transaction
    self.folder = folder
    self.time = folder.clock()
  }

  /// The live record with `key` as this transaction leaves it so far, or `nil`.
  public func record(_ key: RecordKey) -> Record? {
    switch pending[key] {
    case .row(_, let record)?: return record
    case .deleted?: return nil
    case nil:
      let rows = content.rows(for: key)
      return rows.count == 1 ? rows[0].record : nil
    }
  }

  /// The live value of a type with `id` as this transaction leaves it so far, or `nil`.
  public func fetch<T: RecordRepresentable>(_ type: T.Type, id: RecordID) -> T? {
    record(RecordKey(model: T.schema.model, id: id)).flatMap { try? T(record: $0) }
  }

  /// Saves a record: replaces its live row, or adds one (see ``SyncFolder/save(_:)-(Record)``).
  ///
  /// - Throws: ``StashError`` when the record fails its checks, its model is not the
  ///   folder's, or several rows share its id.
  public mutating func save(_ record: Record) throws(StashError) {
    try folder.check(record)
    let key = record.key
    switch try row(of: key) {
    case let row?:
      try StashError.model(transaction.replace(row, with: record))
      pending[key] = .row(row, record)
    case nil:
      let row = try StashError.model(transaction.insert(record))
      pending[key] = .row(row, record)
    }
  }

  /// Saves a value (see ``save(_:)-(Record)``).
  ///
  /// - Returns: The value saved.
  /// - Throws: ``StashError`` as that does.
  @discardableResult
  public mutating func save<T: RecordRepresentable>(_ value: T) throws(StashError) -> T {
    try save(StashError.model(value.makeRecord()))
    return value
  }

  /// Changes the live value of a type with `id` (see ``SyncFolder/update(_:id:_:)``).
  ///
  /// - Returns: The value saved.
  /// - Throws: ``StashError`` when there is no such record, `change` throws (as it is), or the
  ///   value fails its checks.
  @discardableResult
  public mutating func update<T: RecordRepresentable>(
    _ type: T.Type, id: RecordID, _ change: (inout T) throws(StashError) -> Void
  ) throws(StashError) -> T {
    let key = RecordKey(model: T.schema.model, id: id)
    guard let record = record(key) else { throw try missing(key) }
    var value = try StashError.model(T(record: record))
    try change(&value)
    try save(StashError.model(value.makeRecord()))
    return value
  }

  /// Deletes the live record with `key`: its tombstone, which travels, and its row's removal;
  /// then applies the delete rules of the references that name it (``DeleteRule``): the
  /// records of a cascade are deleted, nullified references cleared, and a denying one
  /// refuses the whole transaction.
  ///
  /// - Returns: The deleted record.
  /// - Throws: ``StashError`` when there is no such record, or a rule denies the delete.
  @discardableResult
  public mutating func delete(_ key: RecordKey) throws(StashError) -> Record {
    guard let found = try live(key) else { throw SyncFolder.notFound(key) }
    transaction.putTombstone(
      Tombstone(model: key.model, id: key.id, deletedAt: time, deletedHash: found.hash))
    transaction.removeRow(found.row)
    pending[key] = .deleted
    try applyDeleteRules(naming: key)
    return found.record
  }

  /// Deletes the live value of a type with `id` (see ``delete(_:)``).
  ///
  /// - Throws: ``StashError`` as that does.
  public mutating func delete<T: RecordRepresentable>(_ type: T.Type, id: RecordID)
    throws(StashError)
  {
    try delete(RecordKey(model: T.schema.model, id: id))
  }

  /// The row holding `key` now: `nil` when none does.
  private func row(of key: RecordKey) throws(StashError) -> RowID? {
    try live(key)?.row
  }

  /// The row holding `key` now, its record and that record's snapshot hash (as the store
  /// holds it, for a row this transaction did not write): `nil` when none does.
  private func live(
    _ key: RecordKey
  ) throws(StashError) -> (row: RowID, record: Record, hash: SnapshotHash)? {
    switch pending[key] {
    case .row(let row, let record)?: return (row, record, record.snapshotHash)
    case .deleted?: return nil
    case nil:
      let rows = content.rows(for: key)
      guard rows.count <= 1 else { throw SyncFolder.duplicateRows(rows.count, of: key) }
      // A folder opened for a few records may not have read this one: saving it as new would
      // add a second row of its id.
      if rows.isEmpty, !content.isComplete, folder.local?.holdsUnread(key, in: content) == true {
        throw StashError(
          .refused,
          "The \(key.model) '\(key.id)' is in the store, but this folder was opened for a few "
            + "records and did not read it; open the folder whole to change it")
      }
      return rows.first.map { ($0.row, $0.record, $0.hash) }
    }
  }

  /// Why `key` cannot be changed: several rows hold it, or none.
  private func missing(_ key: RecordKey) throws(StashError) -> StashError {
    _ = try row(of: key)
    return SyncFolder.notFound(key)
  }

  // MARK: - Delete rules

  /// Applies the rules of every reference field that names `deleted`'s model.
  private mutating func applyDeleteRules(naming deleted: RecordKey) throws(StashError) {
    for schema in folder.schemas.schemas.values.sorted(by: { $0.model < $1.model }) {
      for (index, field) in schema.fields.enumerated()
      where field.deleteRule != .none && field.referencedModel == deleted.model {
        guard content.isComplete else {
          throw StashError(
            .refused,
            "The \(deleted.model) '\(deleted.id)' has delete rules to apply, and this folder "
              + "was opened for a few records only; open it whole")
        }
        for referrer in referrers(to: deleted.id, in: schema, field: index) {
          switch field.deleteRule {
          case .none: continue
          case .cascade:
            if record(referrer.key) != nil { try delete(referrer.key) }
          case .nullify:
            var values = referrer.values
            values[index] = .none
            if let changeTime = schema.changeTimeIndex { values[changeTime] = .date(time) }
            try save(StashError.model(Record(schema: schema, id: referrer.id, values: values)))
          case .deny:
            throw StashError(
              .refused,
              "The \(deleted.model) '\(deleted.id)' is named by the \(schema.model) "
                + "'\(referrer.id)' ('\(field.name)'), whose rule denies its delete; delete or "
                + "change that \(schema.model) first")
          }
        }
      }
    }
  }

  /// The live records of `schema`'s model whose field at `field` names `id`, as this
  /// transaction leaves them so far, by id.
  private func referrers(to id: RecordID, in schema: Schema, field: Int) -> [Record] {
    let target = FieldValue.reference(id)
    var found = [RecordKey: Record]()
    // A reference with a delete rule is indexed (``Schema/indexedIndices``).
    for row in content.fieldIndex.rows(of: schema.model, field: field, equalTo: target) {
      guard let record = content.rows[row]?.record, pending[record.key] == nil else { continue }
      found[record.key] = record
    }
    for case (let key, .row(_, let record)) in pending
    where key.model == schema.model && record.values[field] == target {
      found[key] = record
    }
    return found.values.sorted { $0.id < $1.id }
  }
}

extension SyncFolder {
  /// Saves, updates and deletes many records, of any of the folder's models, in one
  /// transaction: one synchronized write, all of it or (when `body` throws, or the save
  /// fails) none of it. The transaction reads the freshest copy under the folder's lock, as
  /// ``update(_:id:_:)`` does, and the next sync carries all of its changes.
  ///
  /// ```swift
  /// try folder.write { tx in
  ///   for round in rounds { try tx.save(round) }
  ///   try tx.delete(Fight.self, id: cancelled)
  /// }
  /// ```
  ///
  /// - Parameter body: Makes the edits; it may throw to refuse (nothing is then written).
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, as it is (a ``StashError`` of one of its edits, or its
  ///   own error); or the save's failure, a ``StashError``.
  @discardableResult
  public func write<T>(_ body: (inout WriteTransaction) throws -> T) throws -> T {
    var refusal: (any Error)?
    do {
      return try write("the transaction") { (tx: inout WriteTransaction) throws(StashError) in
        do {
          return try body(&tx)
        } catch let error as StashError {
          throw error
        } catch {
          refusal = error
          throw StashError(.refused, "The transaction was refused: \(error)")
        }
      }
    } catch {
      throw refusal ?? error
    }
  }

  /// Runs `body` as one transaction named `action` in messages (see ``write(_:)``).
  func write<T>(
    _ action: String, _ body: (inout WriteTransaction) throws(StashError) -> T
  ) throws(StashError) -> T {
    try save(action) { content, transaction throws(StashError) in
      var write = WriteTransaction(content: content, transaction: transaction, folder: self)
      let result = try body(&write)
      transaction = write.transaction
      return result
    }
  }
}
