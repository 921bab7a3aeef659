public import JSONLines
import StashBase
public import StashFiles
public import StashModel

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
  /// the file. Only the operations that name the record (or remove one of its rows) are
  /// decoded; the others are passed over by their model and id.
  ///
  /// - Throws: ``LogError`` when the file cannot be read.
  public func log(
    of key: RecordKey, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> LocalRecordLog {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    var found = LocalRecordLog()
    var conflicts = [ConflictID: SyncConflict]()
    var rows = Set<Int64>()
    let schemas = self.schemas
    let model = JSONValue.string(key.model)
    let id = JSONValue.string(key.id.rawValue)
    _ = try Log.open(
      at: path, format: LocalContent.format, supportedVersion: LocalContent.version,
      recoverTail: false, fileSystem: fileSystem
    ) { (transaction) throws(LogError) in
      for operation in transaction.operations {
        guard Self.mayConcern(operation.object, model: model, id: id, rows: rows) else {
          continue
        }
        found.decoded += 1
        guard let change = try? LocalChange(json: operation.object, schemas: schemas) else {
          continue
        }
        switch change {
        case .putRow(let row, let record, _) where record.key == key:
          rows.insert(row.rawValue)
          found.entries.append(
            .init(sequence: transaction.sequence, record: record, tombstone: nil))
        case .removeRow(let row) where rows.contains(row.rawValue):
          rows.remove(row.rawValue)
          found.entries.append(.init(sequence: transaction.sequence, record: nil, tombstone: nil))
        case .putTombstone(let tombstone) where tombstone.key == key:
          found.entries.append(
            .init(sequence: transaction.sequence, record: nil, tombstone: tombstone))
        case .putConflict(let conflict) where conflict.key == key:
          conflicts[conflict.id] = conflict
        default:
          continue
        }
      }
    }
    found.conflicts = conflicts.values.sorted { $0.id < $1.id }
    return found
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
