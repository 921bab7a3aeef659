public import StashModel

/// Which live rows hold each value of the indexed fields (``Schema/indexedIndices``): what a
/// query selects by, and what a delete rule finds the records naming a deleted one with.
///
/// Kept by ``LocalContent`` as it applies each change, so it is always the content's own:
/// a save, a sync's changes and another process's commits read by a refresh all pass through
/// it. A schema without indexed fields costs nothing.
public struct FieldIndex: Sendable {
  /// Rows by value, per model and field position.
  private var entries: [String: [Int: [FieldValue: Set<RowID>]]] = [:]
  /// Every live row of each model with an indexed field.
  private var rowsByModel: [String: Set<RowID>] = [:]

  /// Adds a row's values.
  mutating func insert(_ row: RowID, _ record: Record) {
    let positions = record.schema.indexedIndices
    guard !positions.isEmpty else { return }
    rowsByModel[record.model, default: []].insert(row)
    for position in positions {
      entries[record.model, default: [:]][position, default: [:]][
        record.values[position], default: []
      ].insert(row)
    }
  }

  /// Removes a row's values.
  mutating func remove(_ row: RowID, _ record: Record) {
    let positions = record.schema.indexedIndices
    guard !positions.isEmpty else { return }
    rowsByModel[record.model]?.remove(row)
    for position in positions {
      let value = record.values[position]
      entries[record.model]?[position]?[value]?.remove(row)
      if entries[record.model]?[position]?[value]?.isEmpty == true {
        entries[record.model]?[position]?[value] = nil
      }
    }
  }

  /// The rows whose field at `position` of `model` (one of its schema's
  /// ``Schema/indexedIndices``) holds `value`.
  public func rows(of model: String, field position: Int, equalTo value: FieldValue)
    -> Set<RowID>
  {
    entries[model]?[position]?[value] ?? []
  }

  /// The rows whose field at `position` of `model` (one of its schema's
  /// ``Schema/indexedIndices``) holds a value `accept` takes, looking at each distinct value
  /// once.
  public func rows(
    of model: String, field position: Int, where accept: (FieldValue) -> Bool
  ) -> Set<RowID> {
    var rows = Set<RowID>()
    for (value, holders) in entries[model]?[position] ?? [:] where accept(value) {
      rows.formUnion(holders)
    }
    return rows
  }

  /// Every live row of `model`, a model with an indexed field.
  public func rows(of model: String) -> Set<RowID> { rowsByModel[model] ?? [] }
}
