import LocalStore
public import StashModel

extension SyncFolder {
  /// The live records of `model`, by id.
  ///
  /// A folder opened for a few records reads them through the index (see ``records(_:)``);
  /// if the store cannot be read, it gives the records it holds.
  public func records(of model: String) -> [Record] {
    guard let content else { return [] }
    if !content.isComplete, let rows = try? local?.rows(of: model, selecting: .all) {
      return rows.map(\.record).filter { $0.model == model }.sorted { $0.id < $1.id }
    }
    return content.records(of: model).sorted { $0.id < $1.id }
  }

  /// The live record with `key`, or `nil` (also when several rows share it: see
  /// ``rows(for:)``).
  ///
  /// A folder opened for a few records reads it through the index (see ``records(_:)``).
  public func record(_ key: RecordKey) -> Record? {
    guard let content else { return nil }
    var rows = content.rows(for: key)
    if !content.isComplete, let found = try? local?.rows(of: key.model, selecting: .id(key.id)) {
      rows = found.filter { $0.record.key == key }
    }
    guard rows.count == 1 else { return nil }
    return rows[0].record
  }

  /// Every live value of a type, by id (records that do not read as `T` are left out).
  public func all<T: RecordRepresentable>(_ type: T.Type) -> [T] {
    records(of: T.schema.model).compactMap { try? T(record: $0) }
  }

  /// The live value of a type with `id`, or `nil`.
  public func fetch<T: RecordRepresentable>(_ type: T.Type, id: RecordID) -> T? {
    record(RecordKey(model: T.schema.model, id: id)).flatMap { try? T(record: $0) }
  }

  /// Saves a value: replaces the live row of its id, or adds one (also after a delete: a
  /// record id, such as a derived one, may be used again).
  ///
  /// - Returns: The value saved.
  /// - Throws: ``StashError`` when the value cannot be stored (a `UInt64` above `Int64.max`, a
  ///   `Double` that is not finite), fails its schema's checks, its model is not one of this
  ///   folder's, several rows share its id, or the save fails.
  @discardableResult
  public func save<T: RecordRepresentable>(_ value: T) throws(StashError) -> T {
    try save(StashError.model(value.makeRecord()))
    return value
  }

  /// Saves a record (see ``save(_:)-(T)``).
  ///
  /// - Throws: ``StashError`` as that does.
  public func save(_ record: Record) throws(StashError) {
    try write("the \(record.model) '\(record.id)'") { tx throws(StashError) in
      try tx.save(record)
    }
  }

  /// Changes the live value of a type with `id` in one transaction, against the freshest copy
  /// under the folder's lock: what `change` reads is what it replaces, so a check it makes
  /// (a lease that has not expired) cannot be raced by another process.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - id: The record's id.
  ///   - change: Changes the value; it may throw to refuse (nothing is then written).
  /// - Returns: The value saved.
  /// - Throws: ``StashError`` when there is no such record, `change` throws (as it is), the
  ///   value fails its checks, or the save fails.
  @discardableResult
  public func update<T: RecordRepresentable>(
    _ type: T.Type, id: RecordID, _ change: (inout T) throws(StashError) -> Void
  ) throws(StashError) -> T {
    try write("the \(T.schema.model) '\(id)'") { tx throws(StashError) in
      try tx.update(type, id: id, change)
    }
  }

  /// Deletes the live record with `key`: a tombstone, which travels, and the row's removal, in
  /// one transaction, with what the delete rules of the references naming it do (see
  /// ``WriteTransaction/delete(_:)``).
  ///
  /// - Returns: The deleted record.
  /// - Throws: ``StashError`` when there is no such record, a rule denies the delete, or the
  ///   save fails.
  @discardableResult
  public func delete(_ key: RecordKey) throws(StashError) -> Record {
    try write("the delete of \(key.model) '\(key.id)'") { tx throws(StashError) in
      try tx.delete(key)
    }
  }

  /// Deletes the live value of a type with `id` (see ``delete(_:)``).
  ///
  /// - Throws: ``StashError`` as that does.
  public func delete<T: RecordRepresentable>(_ type: T.Type, id: RecordID) throws(StashError) {
    try delete(RecordKey(model: T.schema.model, id: id))
  }

  /// Checks a record as a local edit is checked: its model is one of this folder's, with the
  /// same fields, and it passes the schema's own checks.
  func check(_ record: Record) throws(StashError) {
    guard let known = schemas.schemas[record.model], known == record.schema else {
      throw .refused(
        "The model '\(record.model)' is not one this folder was opened with; open it with "
          + "that schema")
    }
    do { try record.schema.validate(record) } catch { throw StashError(error) }
  }

  static func notFound(_ key: RecordKey) -> StashError {
    StashError(
      .refused, "No \(key.model) '\(key.id)'; list the \(key.model)s to see what there is",
      hint: .list(model: key.model))
  }

  static func duplicateRows(_ count: Int, of key: RecordKey) -> StashError {
    StashError(
      .refused,
      "\(count) \(key.model)s share the id '\(key.id)'; repair the folder to merge them",
      hint: .repair)
  }
}

extension SyncFolder {
  /// Saves records once per `step` (a legacy import, a one-time fix): all of them and the mark
  /// that `step` is done, in one transaction; nothing when it was done before.
  ///
  /// - Parameters:
  ///   - records: The records; each replaces the live row of its id or is added.
  ///   - step: The step's name, kept in the device's settings (``DeviceSettings/stepsDone``).
  /// - Returns: Whether the step ran now (`false` when it had run before).
  /// - Throws: ``StashError`` when a record fails its checks (nothing is saved then) or the
  ///   save fails.
  @discardableResult
  public func saveOnce(_ records: [Record], step: String) throws(StashError) -> Bool {
    if settings.stepsDone.contains(step) { return false }
    for record in records { try check(record) }
    return try save("the step '\(step)'") { content, transaction throws(StashError) in
      guard !content.settings.stepsDone.contains(step) else { return false }
      for record in records {
        let rows = content.rows(for: record.key)
        switch rows.count {
        case 0: try StashError.model(transaction.insert(record))
        case 1: try StashError.model(transaction.replace(rows[0].row, with: record))
        default: throw Self.duplicateRows(rows.count, of: record.key)
        }
      }
      var settings = content.settings
      settings.stepsDone.insert(step)
      transaction.setSettings(settings)
      return true
    }
  }
}
