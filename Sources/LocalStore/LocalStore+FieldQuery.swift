import JSONLines
public import StashModel
import Synchronization

extension LocalStore {
  /// Which rows of a model a query reads first: all of them, or those whose indexed field
  /// (a position of ``Schema/indexedIndices``) holds a value or lies in a range.
  public enum FieldSelection: Hashable, Sendable {
    /// Every live row of the model.
    case all
    /// The rows holding this record id (one, unless the store holds duplicates).
    case id(RecordID)
    /// The rows whose field at `field` holds this value (``FieldValue/none``: empty).
    case equals(field: Int, FieldValue)
    /// The rows whose field at `field` lies from the first value through the second (an
    /// absent bound is open; empty optionals lie in no range), as
    /// ``FieldValue/lies(from:through:)`` compares.
    case between(field: Int, FieldValue?, FieldValue?)
  }

  /// The live rows of `model` a selection picks, each as the store holds it now: every row
  /// that meets it, and perhaps a few that do not (the caller checks each row).
  ///
  /// A store read whole answers from memory (``LocalContent/fieldIndex``). A store opened for
  /// a few records (``Focus``) answers from the index it was opened from: the field table (or,
  /// for ``FieldSelection/all``, the id table) gives the rows, and only those rows' lines are
  /// read and checked, as a focused open reads them; rows changed since the index (after its
  /// prefix, or saved since) come from memory. Its cost follows the rows selected, not the
  /// store. When the index cannot answer (it is missing, was rewritten by another process,
  /// fails a check, or a line is not what it says), the store is read whole, exactly as an
  /// open without a focus reads it, its index is written again, and the answer comes from
  /// memory.
  ///
  /// - Throws: ``LocalStoreError/log(_:)`` when the store must be read whole and cannot be.
  public func rows(of model: String, selecting selection: FieldSelection)
    throws(LocalStoreError) -> [StoredRow]
  {
    let whole: [StoredRow]?? = file.withLog { _, content in
      content.isComplete ? Self.memoryRows(of: model, selecting: selection, in: content) : nil
    }
    switch whole {
    case .none:  // no file yet: what the content holds
      return Self.memoryRows(of: model, selecting: selection, in: content)
    case .some(.some(let rows)):
      // A focused open that found no usable index read the store whole: write it again now,
      // so that the next process's queries use it (a save would otherwise be the first).
      if case .ignored = openReport.index { maintainIndex() }
      return rows
    case .some(.none):
      if let rows = indexedRows(of: model, selecting: selection) { return rows }
    }
    do { try file.readWhole() } catch { throw .log(error.logError) }
    indexState.withLock { $0 = IndexState(end: nil, inode: nil, loaded: nil, checked: false) }
    maintainIndex()
    return Self.memoryRows(of: model, selecting: selection, in: content)
  }

  /// Whether the index beside this store lists a live row of `key` that `content` (this
  /// store's, opened for a few records) never read: a save of `key` must not add a row then.
  /// `false` for a whole content, or when the index cannot say.
  public func holdsUnread(_ key: RecordKey, in content: LocalContent) -> Bool {
    guard !content.isComplete,
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs)
    else { return false }
    let id = Array(key.id.rawValue.utf8)
    let entries = reader.entries(model: Array(key.model.utf8), idPrefix: id) ?? []
    return entries.contains { entry in
      let row = RowID(entry.row)
      return entry.id == id && content.rows[row] == nil && content.changedSinceIndex[row] == nil
    }
  }

  /// The rows a selection picks from a content's own rows, through its field index.
  static func memoryRows(
    of model: String, selecting selection: FieldSelection, in content: LocalContent
  ) -> [StoredRow] {
    let index = content.fieldIndex
    let rows: Set<RowID>
    switch selection {
    case .all:
      guard let schema = content.schemas.schemas[model], !schema.indexedIndices.isEmpty else {
        return content.rows.values.filter { $0.record.model == model }
      }
      rows = index.rows(of: model)
    case .id(let id):
      return content.rows(for: RecordKey(model: model, id: id))
    case .equals(let field, let value):
      rows = index.rows(of: model, field: field, equalTo: value)
    case .between(let field, let lower, let upper):
      rows = index.rows(of: model, field: field) { $0.lies(from: lower, through: upper) }
    }
    return rows.compactMap { content.rows[$0] }
  }

  /// The rows a selection picks in a focused store, through the index it was opened from;
  /// `nil` when that index cannot answer.
  private func indexedRows(of model: String, selecting selection: FieldSelection)
    -> [StoredRow]?
  {
    guard let loaded = indexState.withLock({ $0.loaded }),
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.index.headChecksum == loaded.headChecksum, reader.index.prefix == loaded.prefix
    else { return nil }
    let modelBytes = Array(model.utf8)
    var entries: [LocalIndex.Entry]? = []
    switch selection {
    case .all:
      entries = reader.entries(model: modelBytes, idPrefix: [])
    case .id(let id):
      let bytes = Array(id.rawValue.utf8)
      entries = reader.entries(model: modelBytes, idPrefix: bytes)?.filter { $0.id == bytes }
    case .equals(let field, let value):
      guard field <= 255 else { return nil }
      if let key = LocalIndex.fieldKey(value) {
        entries = reader.entries(
          model: modelBytes, fieldFrom: [UInt8(field)] + key, through: [UInt8(field)] + key)
      }
    case .between(let field, let lower, let upper):
      guard field <= 255 else { return nil }
      if let (low, high) = LocalIndex.fieldRange(from: lower, through: upper) {
        entries = reader.entries(
          model: modelBytes, fieldFrom: [UInt8(field)] + low, through: [UInt8(field)] + high)
      }
    }
    guard let entries else { return nil }
    let found: [StoredRow]?? = file.withLog { log, content -> [StoredRow]? in
      guard !content.isComplete, content.linesAreKnown else { return nil }
      var found = [RowID: StoredRow]()
      for entry in entries {
        let row = RowID(entry.row)
        // Changed since the index: memory has it as it is now (or knows it is gone).
        guard content.changedSinceIndex[row] == nil, !content.unseenRows.contains(row),
          found[row] == nil
        else { continue }
        if let stored = content.rows[row] {
          found[row] = stored
          continue
        }
        guard case .putRow(let id, let record, let hash)? = log.change(at: entry.span, in: content),
          id == row, Array(record.model.utf8) == entry.model,
          Array(record.id.rawValue.utf8) == entry.id
        else { return nil }
        found[row] = StoredRow(row: id, record: record, hash: hash)
      }
      for stored in Self.memoryRows(of: model, selecting: selection, in: content) {
        found[stored.row] = stored
      }
      return Array(found.values)
    }
    return found ?? nil
  }
}

extension FieldValue {
  /// How two values of one field compare: `nil` when they cannot (different kinds, such as a
  /// counter, a photo, or a value and an empty optional's `none`, which orders first).
  package static func order(_ lhs: FieldValue, _ rhs: FieldValue) -> Bool? {
    switch (lhs, rhs) {
    case (.none, .none): false
    case (.none, _): true
    case (_, .none): false
    case (.integer(let a), .integer(let b)): a < b
    case (.double(let a), .double(let b)): a < b
    case (.date(let a), .date(let b)): a.secondsSince1970 < b.secondsSince1970
    case (.bool(let a), .bool(let b)): !a && b
    case (.string(let a), .string(let b)):
      a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    case (.reference(let a), .reference(let b)): a < b
    default: nil
    }
  }

  /// Whether this value lies from `lower` through `upper` (an absent bound is open); an
  /// empty optional lies in no range.
  package func lies(from lower: FieldValue?, through upper: FieldValue?) -> Bool {
    if case .none = self { return false }
    if let lower, FieldValue.order(self, lower) != false { return false }
    if let upper, FieldValue.order(upper, self) != false { return false }
    return true
  }
}
