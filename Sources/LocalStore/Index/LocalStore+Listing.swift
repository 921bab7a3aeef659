import JSONLines
public import StashModel
import Synchronization

extension LocalStore {
  /// One live row of a model as a listing that reads a row at a time knows it before reading
  /// it: its record id, its first lookup name and where it is (a line of the file, or this
  /// store's memory for a row changed after the index's prefix).
  ///
  /// A listing of 100,000 rows holds 100,000 of these (about 150 bytes each), never the
  /// records: ``read(_:)`` reads and decodes one row when it is its turn.
  public struct ListedRow: Sendable {
    /// The row.
    public let row: RowID
    /// The record's id.
    public let id: RecordID
    /// The record's first lookup name (``Record/lookupName``) lowercased and canonically
    /// decomposed, as the index's name table holds it: Swift's `String` comparison orders it
    /// exactly as it orders `lookupName.lowercased()` (both compare canonical equivalents
    /// equal). Empty for a record without one.
    public let name: String
    let source: Source

    /// Where the row is.
    enum Source: Sendable {
      /// A line of the store's committed prefix, read when the row's turn comes.
      case line(LineSpan)
      /// In memory (written after the index's prefix).
      case memory(StoredRow)
    }
  }

  /// The live rows of `model` for a listing that reads one row at a time, in no particular
  /// order; `nil` when the store was read whole (its ``content`` holds every row) or when the
  /// index it was opened from cannot answer (missing, rewritten by another process, a block
  /// damaged, or one of the lines it names failing its checksum): the caller then reads the
  /// store whole, as a query does (``rows(of:selecting:)`` with ``FieldSelection/all``).
  ///
  /// Every line is read and its checksum checked here (a sequential read of the rows' bytes,
  /// no decoding), so that a listing that printed its first row does not meet a damaged line
  /// later: what a whole read would set aside is found before anything is printed.
  public func listedRows(of model: String) -> [ListedRow]? {
    guard let loaded = indexState.withLock({ $0.loaded }),
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.index.headChecksum == loaded.headChecksum, reader.index.prefix == loaded.prefix
    else { return nil }
    let modelBytes = Array(model.utf8)
    let found: [ListedRow]?? = file.withLog { log, content -> [ListedRow]? in
      guard !content.isComplete, content.linesAreKnown else { return nil }
      var listed = [ListedRow]()
      var seen = Set<RowID>()
      var intact = true
      let complete = reader.forEachEntry { entry in
        guard intact, entry.kind == .row, entry.model == modelBytes else { return }
        let row = RowID(entry.row)
        // Changed since the index: memory has it as it is now (or knows it is gone).
        guard content.changedSinceIndex[row] == nil, !content.unseenRows.contains(row),
          content.rows[row] == nil, seen.insert(row).inserted
        else { return }
        guard let id = RecordID(String(decoding: entry.id, as: UTF8.self)),
          entry.names.count <= 1, log.lineIsIntact(at: entry.span)
        else {
          intact = false
          return
        }
        let name = entry.names.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        listed.append(ListedRow(row: row, id: id, name: name, source: .line(entry.span)))
      }
      guard complete, intact else { return nil }
      for stored in content.rows.values where stored.record.model == model {
        let name = stored.record.lookupName.map {
          String(decoding: LocalIndex.searchForm($0), as: UTF8.self)
        }
        listed.append(
          ListedRow(
            row: stored.row, id: stored.record.id, name: name ?? "", source: .memory(stored)))
      }
      return listed
    }
    return found ?? nil
  }

  /// Reads and decodes one listed row, checking that its line holds the row the index says.
  ///
  /// - Throws: ``LocalStoreError/log(_:)`` when the line is no longer that row (the file
  ///   changed under the listing, which the folder's lock rules out).
  public func read(_ listed: ListedRow) throws(LocalStoreError) -> StoredRow {
    let span: LineSpan
    switch listed.source {
    case .memory(let stored): return stored
    case .line(let line): span = line
    }
    let found: StoredRow?? = file.withLog { log, content -> StoredRow? in
      guard case .putRow(let row, let record, let hash)? = log.change(at: span, in: content),
        row == listed.row, record.id == listed.id
      else { return nil }
      return StoredRow(row: row, record: record, hash: hash)
    }
    guard let stored = found ?? nil else {
      throw .log(
        .damaged(
          path: path, line: span.line, reason: "it is not the row its index names any more"))
    }
    return stored
  }
}
