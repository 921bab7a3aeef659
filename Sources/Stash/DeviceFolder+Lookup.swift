package import LocalStore
package import StashModel

extension DeviceFolder {
  /// Finds one record of `model` by id, unique id prefix (4+ characters), or exact name
  /// (case-insensitive).
  ///
  /// An exact id wins. Otherwise every record whose id starts with `text` (when `text` is at
  /// least 4 characters) or whose name equals `text` ignoring case is a candidate: one is the
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
      if case .string(let name)? = stored.record[field: "name"], name.lowercased() == lowered {
        return true
      }
      if model == "reminder", case .string(let message)? = stored.record[field: "message"],
        message.lowercased() == lowered
      {
        return true
      }
      return false
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

  /// `'Name' (3f2b8c1e)` for messages.
  static func label(of record: Record) -> String {
    var name = ""
    if case .string(let text)? = record[field: "name"] { name = text }
    if case .string(let text)? = record[field: "message"] { name = text }
    return "'\(name)' (\(record.id.rawValue.prefix(8)))"
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
