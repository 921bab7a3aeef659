public import JSONLines
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
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    var entries = [LocalHistoryEntry]()
    var rows = Set<RowID>()
    let schemas = self.schemas
    _ = try Log.open(
      at: path, format: LocalContent.format, supportedVersion: LocalContent.version,
      recoverTail: false, fileSystem: fileSystem
    ) { (transaction) throws(LogError) in
      for operation in transaction.operations {
        guard let change = try? LocalChange(json: operation.object, schemas: schemas) else {
          continue
        }
        switch change {
        case .putRow(let row, let record, _) where record.key == key:
          rows.insert(row)
          entries.append(.init(sequence: transaction.sequence, record: record, tombstone: nil))
        case .removeRow(let row) where rows.contains(row):
          rows.remove(row)
          entries.append(.init(sequence: transaction.sequence, record: nil, tombstone: nil))
        case .putTombstone(let tombstone) where tombstone.key == key:
          entries.append(.init(sequence: transaction.sequence, record: nil, tombstone: tombstone))
        default:
          continue
        }
      }
    }
    return entries
  }
}
