package import LocalStore
package import StashModel

extension DeviceFolder {
  /// Finds one record of `model` by id, unique id prefix (4+ characters), or exact name
  /// (case-insensitive).
  ///
  /// An exact id wins. Otherwise every record whose id starts with `text` (when `text` is at
  /// least 4 characters) or whose name equals `text` ignoring case (a value of a lookup field
  /// its schema declares: ``Record/lookupNames``) is a candidate: one is the
  /// answer, none is "not found", several are refused with the candidates listed.
  ///
  /// - Parameters:
  ///   - text: What the person typed.
  ///   - model: `item`, `location` or `reminder`.
  ///   - content: The content to search (the freshest, inside a save).
  /// - Returns: The row found.
  /// - Throws: ``StashError`` (refused) when nothing or several things match.
  package func find(_ text: String, model: String, in content: LocalContent) throws(StashError)
    -> StoredRow
  {
    let noun = model
    if let id = RecordID(normalizing: text) {
      let key = RecordKey(model: model, id: id)
      let rows = content.rows(for: key)
      if rows.count == 1 { return rows[0] }
      if rows.count > 1 {
        throw StashError(
          .refused,
          "\(rows.count) \(noun)s share the id '\(id)'; examining the folder lists duplicates",
          hint: .examine)
      }
    }
    let lowered = text.lowercased()
    let byPrefix = lowered.count >= 4
    let candidates = content.rows.values.filter { stored in
      guard stored.record.model == model else { return false }
      if byPrefix && stored.record.id.rawValue.hasPrefix(lowered) { return true }
      return stored.record.lookupNames.contains { $0.lowercased() == lowered }
    }.sorted { $0.row < $1.row }
    switch candidates.count {
    case 1:
      return candidates[0]
    case 0:
      throw StashError(
        .refused, "No \(noun) named '\(text)'; list the \(noun)s to see what there is",
        hint: .list(model: model))
    default:
      let names = candidates.prefix(10).map { Self.label(of: $0.record) }.joined(separator: ", ")
      throw .refused(
        "'\(text)' matches \(candidates.count) \(noun)s: \(names); use the id (or a longer "
          + "prefix) to choose one")
    }
  }

  /// The freshest row of a record ``find(_:model:in:)`` resolved earlier (`content` is the
  /// freshest, inside a save), by its key: no second lookup by name. A record deleted or
  /// duplicated meanwhile is refused in the words `find` gives for its id.
  func row(resolved key: RecordKey, in content: LocalContent) throws(StashError) -> StoredRow {
    let rows = content.rows(for: key)
    if rows.count == 1 { return rows[0] }
    return try find(key.id.rawValue, model: key.model, in: content)
  }

  /// `'Name' (3f2b8c1e)` for messages: the record's first lookup name
  /// (``Record/lookupName``), empty when it has none.
  static func label(of record: Record) -> String {
    "'\(record.lookupName ?? "")' (\(record.id.rawValue.prefix(8)))"
  }
}

/// A record as a store row holds it, with the snapshot hash written beside it.
package struct StoredRecord: Hashable, Sendable {
  /// The record, with every field (device-local ones too) exactly as stored.
  package let record: Record
  /// The snapshot hash stored with the row (it equals `record.snapshotHash` in a sound store).
  package let hash: SnapshotHash

  /// A stored record.
  package init(record: Record, hash: SnapshotHash) {
    self.record = record
    self.hash = hash
  }
}

extension DeviceFolder {
  /// The row of `model` that `text` names (an id, a unique id prefix, or an exact name).
  ///
  /// - Parameters:
  ///   - text: What the person typed.
  ///   - model: `item`, `location` or `reminder`.
  /// - Returns: The record and its stored hash.
  /// - Throws: ``StashError`` when nothing or several records match.
  package func storedRecord(_ text: String, model: String) throws(StashError) -> StoredRecord {
    guard let content else {
      throw .refused("No \(model) named '\(text)'; there is no inventory yet")
    }
    let row = try find(text, model: model, in: content)
    return StoredRecord(record: row.record, hash: row.hash)
  }
}
