public import JSONLines
import StashBase
public import StashFiles
public import StashModel
import Synchronization

/// One committed change to a record in the local store's log.
public struct LocalHistoryEntry: Sendable {
  /// The transaction that wrote it (1, 2, 3… since the file was last compacted).
  public let sequence: Int64
  /// The record as written, or `nil` for a removal.
  public let record: Record?
  /// The tombstone written, for a deletion (or adopted from the mirror).
  public let tombstone: Tombstone?
}

/// What the local store's log holds of one record: every committed version of its row and
/// every tombstone (``LocalStore/history(of:fileSystem:)``), and its conflicts as the log
/// leaves them (resolved ones too, which a focused open does not load).
public struct LocalRecordLog: Sendable {
  /// The versions, oldest first.
  public var entries: [LocalHistoryEntry] = []
  /// The record's conflicts, each in its last state, by id.
  public var conflicts: [SyncConflict] = []
  /// How many operations were decoded into changes (those of other records are skipped
  /// before decoding): what a test counts.
  public var decoded = 0

  /// Nothing of the record.
  public init() {}
}

extension LocalStore {
  /// Every committed version of `key`'s row and every tombstone of it in the store file,
  /// oldest first, read from the file without changing it (what compaction rewrote as one
  /// transaction shows as its latest state only).
  ///
  /// - Parameters:
  ///   - key: The record.
  ///   - fileSystem: The file-system seam the store was opened with.
  /// - Returns: The entries, oldest first.
  /// - Throws: ``LogError`` when the file cannot be read.
  public func history(
    of key: RecordKey, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> [LocalHistoryEntry] {
    try log(of: key, fileSystem: fileSystem).entries
  }

  /// What the store file's log holds of `key` (``LocalRecordLog``), read without changing
  /// the file. For a store opened from its index (``Focus``), whose index has a history
  /// section: the lines of the prefix the section lists for `key`, then the lines after the
  /// prefix that hold the record's id (or remove a row), so the cost is that of the record and
  /// of the file's tail, not of the file. Otherwise (or when the index fails a check, or a
  /// line is not where it says) the committed part as this store read it is searched for those
  /// lines, and only those are read, checked and decoded: a pass over the bytes, not a
  /// decoding of every line. Both give the same log.
  ///
  /// - Throws: ``LogError`` when the file cannot be read, or a line found is damaged.
  public func log(
    of key: RecordKey, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> LocalRecordLog {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let schemas = self.schemas
    let loaded = indexState.withLock { $0.loaded }
    let reader = loaded.flatMap {
      index -> IndexReader? in
      guard let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
        reader.index.headChecksum == index.headChecksum, reader.index.hasHistory
      else { return nil }
      return reader
    }
    let searched = file.withLog { log, _ -> Result<LocalRecordLog, LogError> in
      do throws(LogError) {
        if let reader, let found = try Self.indexedSearch(log, reader, for: key, schemas: schemas) {
          return .success(found)
        }
        return .success(try Self.search(log, for: key, schemas: schemas))
      } catch {
        return .failure(error)
      }
    }
    guard let searched else { return LocalRecordLog() }  // no file: nothing was written
    return try searched.get()
  }

  /// ``log(of:fileSystem:)`` over an open log, searching all of it.
  private static func search(
    _ log: Log, for key: RecordKey, schemas: SchemaRegistry
  ) throws(LogError) -> LocalRecordLog {
    var candidates = [(span: LineSpan, sequence: Int64)]()
    try log.lines(holdingAnyOf: needles(of: key)) { span, text in
      candidates.append((span, transaction(of: text)))
    }
    return try decide(candidates, in: log, for: key, schemas: schemas)
  }

  /// The lines that may be about `key`: those holding its id, and the removals of rows.
  private static func needles(of key: RecordKey) -> [[UInt8]] {
    [Array(key.id.rawValue.utf8), Array(#""remove""#.utf8)]
  }

  /// ``log(of:fileSystem:)`` over an open log through the index `reader` reads (the one the
  /// store was opened from, with a history section): the lines it lists for `key`, then the
  /// lines after its prefix that may be about it; `nil` when a block of the index fails its
  /// check or a line it lists is not an operation line of this file.
  private static func indexedSearch(
    _ log: Log, _ reader: IndexReader, for key: RecordKey, schemas: SchemaRegistry
  ) throws(LogError) -> LocalRecordLog? {
    guard
      let spans = reader.historyLines(
        model: Array(key.model.utf8), id: Array(key.id.rawValue.utf8))
    else { return nil }
    var candidates = [(span: LineSpan, sequence: Int64)]()
    for span in spans {
      guard let (sequence, _) = log.sequencedOperation(at: span) else { return nil }
      candidates.append((span, sequence))
    }
    let prefix = reader.index.prefix
    try log.lines(holdingAnyOf: needles(of: key), after: (prefix.end, prefix.lines)) {
      span, text in
      candidates.append((span, transaction(of: text)))
    }
    return try decide(candidates, in: log, for: key, schemas: schemas)
  }

  /// The log of `key` from the lines that may be about it (`candidates`, in file order).
  private static func decide(
    _ candidates: [(span: LineSpan, sequence: Int64)], in log: Log, for key: RecordKey,
    schemas: SchemaRegistry
  ) throws(LogError) -> LocalRecordLog {
    var found = LocalRecordLog()
    var conflicts = [ConflictID: SyncConflict]()
    var rows = Set<Int64>()
    let model = JSONValue.string(key.model)
    let id = JSONValue.string(key.id.rawValue)
    func take(_ change: LocalChange, sequence: Int64) {
      switch change {
      case .putRow(let row, let record, _) where record.key == key:
        rows.insert(row.rawValue)
        found.entries.append(.init(sequence: sequence, record: record, tombstone: nil))
      case .removeRow(let row) where rows.contains(row.rawValue):
        rows.remove(row.rawValue)
        found.entries.append(.init(sequence: sequence, record: nil, tombstone: nil))
      case .putTombstone(let tombstone) where tombstone.key == key:
        found.entries.append(.init(sequence: sequence, record: nil, tombstone: tombstone))
      case .putConflict(let conflict) where conflict.key == key:
        conflicts[conflict.id] = conflict
      default:
        break
      }
    }
    func take(_ operation: JSONObject, sequence: Int64) {
      guard mayConcern(operation, model: model, id: id, rows: rows) else { return }
      found.decoded += 1
      guard let change = try? LocalChange(json: operation, schemas: schemas) else { return }
      take(change, sequence: sequence)
    }
    for (span, sequence) in candidates {
      // A row's put as its writer writes it names its record first: another record's (one
      // that refers to this one) is passed over unread, this record's read straight from its
      // bytes, as an open reads it. Any other operation is parsed from the same bytes, and
      // passed over unless it may be about the record; a line not framed as its writer
      // frames it is read again, whole, through its tree.
      let read = log.readOperation(at: span) { body -> DirectRead in
        if let named = LocalChange.putKey(operation: body) {
          guard named == key else { return .otherRecord }
          if let change = LocalChange.read(operation: body, schemas: schemas) {
            return .change(change)
          }
        }
        guard case .object(let operation)? = try? JSONParser.parse(body) else { return .unframed }
        return .operation(operation)
      }
      switch read ?? .unframed {
      case .otherRecord:
        continue
      case .change(let change):
        found.decoded += 1
        take(change, sequence: sequence)
      case .operation(let operation):
        take(operation, sequence: sequence)
      case .unframed:
        guard let operation = log.operation(at: span) else {
          throw .damaged(
            path: log.path, line: span.line,
            reason: "it fails its checksum or is not an operation")
        }
        take(operation, sequence: sequence)
      }
    }
    found.conflicts = conflicts.values.sorted { $0.id < $1.id }
    return found
  }

  /// What a candidate line of ``decide(_:in:for:schemas:)`` is, seen from its bytes.
  private enum DirectRead {
    /// A put of another record's row.
    case otherRecord
    /// A put of the record's row, read straight from its bytes.
    case change(LocalChange)
    /// Any other operation, parsed from the bytes read.
    case operation(JSONObject)
    /// A line not framed as its writer frames it (or not there): read it through its tree.
    case unframed
  }

  /// The transaction number of an operation line (`{"crc":"…","tx":7,"op":…}`); 0 when the
  /// line does not start that way.
  private static func transaction(of line: UnsafeRawBufferPointer) -> Int64 {
    let start = 18 + 5  // the checksum's prefix, then `"tx":`
    guard line.count > start, line[18] == UInt8(ascii: "\""), line[19] == UInt8(ascii: "t")
    else { return 0 }
    var value: Int64 = 0
    var index = start
    while index < line.count, line[index] >= 0x30, line[index] <= 0x39, value < 1 << 58 {
      value = value * 10 + Int64(line[index] - 0x30)
      index += 1
    }
    return value
  }

  /// Whether an operation may be about the record of `model` and `id`: a row put or a
  /// tombstone naming it, a removal of one of its `rows`, a conflict on it.
  private static func mayConcern(
    _ object: JSONObject, model: JSONValue, id: JSONValue, rows: Set<Int64>
  ) -> Bool {
    guard object.count == 1, let (name, value) = object.first(where: { _ in true }),
      case .object(let body) = value
    else { return false }
    switch name {
    case "put", "tombstone": return body["model"] == model && body["id"] == id
    case "remove":
      guard case .integer(let row)? = body["row"] else { return false }
      return rows.contains(row)
    case "conflict": return body["model"] == model && body["recordID"] == id
    default: return false
    }
  }
}
