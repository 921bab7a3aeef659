import LocalStore
public import StashModel

extension SyncFolder {
  /// The live records a query asks for, from the local store's field index: the rows of the
  /// first condition's value (or values, for a range) are read, the other conditions checked
  /// on them, then ordered and cut to the limit. What it costs follows the rows the first
  /// condition selects (and, for a range, the field's distinct values), not the store.
  ///
  /// - Throws: ``StashError`` (refused) when the model is not the folder's, a condition
  ///   names a field that is not indexed (or not a field), or the order names no field; or
  ///   when the folder was opened for a few records only.
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
    guard let content else { return [] }
    guard content.isComplete else {
      throw .refused("This folder was opened for a few records only; open it whole to query")
    }
    let rows = candidateRows(query, schema: schema, positions: positions, content: content)
    var records = rows.compactMap { content.rows[$0]?.record }.filter { record in
      zip(query.filters, positions).allSatisfy { filter, position in
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

  /// The rows the first condition selects, or every row of the model without one.
  private func candidateRows(
    _ query: RecordQuery, schema: Schema, positions: [Int], content: LocalContent
  ) -> [RowID] {
    let index = content.fieldIndex
    guard let first = query.filters.first, let position = positions.first else {
      if !schema.indexedIndices.isEmpty { return Array(index.rows(of: schema.model)) }
      return content.rows.values.filter { $0.record.model == schema.model }.map(\.row)
    }
    switch first.condition {
    case .equals(let value):
      return Array(index.rows(of: schema.model, field: position, equalTo: value))
    case .between(let lower, let upper):
      return Array(
        index.rows(of: schema.model, field: position) { $0.lies(from: lower, through: upper) })
    }
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
