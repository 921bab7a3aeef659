import LocalStore
public import StashModel

extension SyncFolder {
  /// The live records a query asks for, from the local store's field index: the rows of the
  /// first condition's value (or values, for a range) are read, the other conditions checked
  /// on them, then ordered and cut to the limit. What it costs follows the rows the first
  /// condition selects (and, for a range in memory, the field's distinct values), not the
  /// store.
  ///
  /// A folder read whole answers from memory. A folder opened for a few records (its
  /// options' ``Options/focus(on:)``, with no lookups for an app that only queries) answers
  /// from the index file beside the store (`default.store.index`), reading only the rows
  /// selected; when that index cannot answer (missing, rewritten by another process,
  /// damaged), the store is read whole first and the index written again. Both give the same
  /// records.
  ///
  /// - Throws: ``StashError`` (refused) when the model is not the folder's, a condition
  ///   names a field that is not indexed (or not a field), or the order names no field; or
  ///   when the store must be read whole and cannot be.
  public func records(_ query: RecordQuery) throws(StashError) -> [Record] {
    guard let schema = schemas.schemas[query.model] else {
      throw .refused(
        "The model '\(query.model)' is not one this folder was opened with; open it with "
          + "that schema")
    }
    var positions = [Int]()
    for filter in query.filters {
      guard let position = schema.index(of: filter.field),
        schema.indexedIndices.contains(position)
      else {
        throw StashError(
          .refused,
          "The field '\(filter.field)' of '\(query.model)' is not indexed; declare it in the "
            + "schema's indexed fields to select by it")
      }
      positions.append(position)
    }
    var orderPosition: Int?
    if let order = query.order {
      guard let position = schema.index(of: order.field) else {
        throw .refused("The model '\(query.model)' has no field '\(order.field)' to sort by")
      }
      orderPosition = position
    }
    guard let local else { return [] }
    let selection: LocalStore.FieldSelection
    switch (query.filters.first?.condition, positions.first) {
    case (.equals(let value)?, let position?): selection = .equals(field: position, value)
    case (.between(let lower, let upper)?, let position?):
      selection = .between(field: position, lower, upper)
    default: selection = .all
    }
    let rows: [StoredRow]
    do { rows = try local.rows(of: schema.model, selecting: selection) } catch {
      throw StashError(error)
    }
    var records = rows.map(\.record).filter { record in
      record.model == schema.model
        && zip(query.filters, positions).allSatisfy { filter, position in
          filter.condition.accepts(record.values[position])
        }
    }
    records.sort { lhs, rhs in
      if let position = orderPosition, lhs.values[position] != rhs.values[position] {
        let ascending = FieldValue.order(lhs.values[position], rhs.values[position]) ?? false
        let descending = FieldValue.order(rhs.values[position], lhs.values[position]) ?? false
        if ascending || descending { return query.order!.descending ? descending : ascending }
      }
      return lhs.id < rhs.id
    }
    if let limit = query.limit, records.count > limit { records.removeLast(records.count - limit) }
    return records
  }

  /// The live values of a type a query asks for (records that do not read as `T` are left
  /// out); see ``records(_:)``.
  ///
  /// - Throws: ``StashError`` as that does.
  public func all<T: RecordRepresentable>(_ type: T.Type, _ query: RecordQuery)
    throws(StashError) -> [T]
  {
    try records(query).compactMap { try? T(record: $0) }
  }
}

extension RecordQuery.Condition {
  /// Whether a field's value meets it.
  func accepts(_ value: FieldValue) -> Bool {
    switch self {
    case .equals(let wanted): value == wanted
    case .between(let lower, let upper): value.lies(from: lower, through: upper)
    }
  }
}
