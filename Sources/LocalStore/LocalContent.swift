public import JSONLines
public import StashBase
public import StashModel

/// A live row of the local store: where it is, the record, and its snapshot hash.
public struct StoredRow: Hashable, Sendable {
  /// The row's own identity.
  public let row: RowID
  /// The record it holds.
  public let record: Record
  /// The record's snapshot hash, as computed when the row was written.
  public let hash: SnapshotHash
}

/// Everything the local store holds, in memory: the result of replaying its committed
/// transactions.
///
/// Reading it never touches the disk. It is changed only through ``apply(_:)``, by the store,
/// after the change is durably written.
public struct LocalContent: Sendable {
  /// This device's identity (from the store's header).
  public let deviceID: DeviceID
  /// Live rows by row id (in row order).
  public private(set) var rows = RowMap<StoredRow>()
  /// Row ids by record key; more than one means a duplicate id.
  public private(set) var rowsByKey = CompactDictionary<RecordKey, RowIDs>()
  /// Local tombstones by key.
  public private(set) var tombstones = CompactDictionary<RecordKey, Tombstone>()
  /// Last agreed state per key, bound to ``checkpointMirror``.
  public private(set) var checkpoints = CompactDictionary<RecordKey, Checkpoint>()
  /// The mirror the checkpoints were agreed with (`nil` before the first pass).
  public private(set) var checkpointMirror: StoreID?
  /// Every conflict ever recorded, by id (in a content built for a ``LocalStore/Focus``: the
  /// open ones of its keys, and those the file holds after the index's prefix).
  public private(set) var conflicts: [ConflictID: SyncConflict] = [:]
  /// Open diagnostics by key and store.
  public private(set) var diagnostics: [DiagnosticKey: Diagnostic] = [:]
  /// The device's own settings.
  public private(set) var settings: DeviceSettings
  /// The next unused row id (never one a damaged row named).
  public internal(set) var nextRow = RowID(1)
  /// Rows set aside when the file was read, by the row number their line names (see
  /// ``DamagedRow``): none of them is live.
  public private(set) var damagedRows: [Int64: DamagedRow] = [:]
  /// The schemas the rows follow.
  public let schemas: SchemaRegistry
  /// Which rows hold each value of the schemas' indexed fields.
  public private(set) var fieldIndex = FieldIndex()
  /// Where each live row's line is in the file, while that is known (``linesAreKnown``):
  /// what an index beside the store is built from.
  public internal(set) var rowLines = RowMap<LineSpan>()
  /// Where the settings' line and the checkpoints' binding line are.
  public internal(set) var settingsLine: LineSpan?
  /// Where the line binding the checkpoints to a mirror is.
  public internal(set) var bindingLine: LineSpan?
  /// Where the lines of the tombstones, checkpoints, conflicts and diagnostics are, while
  /// ``linesAreKnown``.
  var keyedLines = KeyedLines()
  /// Whether the lines of every row, tombstone, checkpoint, conflict, diagnostic and of the
  /// settings are known (not after a change applied without its line, or a compaction).
  public internal(set) var linesAreKnown = true
  /// Whether this is the whole store (`false`: built from the index for a few records, see
  /// ``LocalStore/Focus``; only those records, and what the file holds after the index's
  /// prefix, are here).
  public internal(set) var isComplete = true
  /// In a content that is not complete: the rows changed since it was built from the index,
  /// and their lines (`nil`: removed), so that the index can be brought up to date.
  var changedSinceIndex: [RowID: LineSpan?] = [:]
  /// In a content that is not complete: rows that a change after it was built removed or
  /// replaced though it never held them (what they held is unknown here). A sync of a few
  /// records checks that none of the rows its changes touch is among them.
  public internal(set) var unseenRows: Set<RowID> = []
  /// In a content that is not complete: the tombstones, checkpoints, conflicts and
  /// diagnostics changed since it was built from the index.
  var keyedChangesSinceIndex = KeyedChanges()
  /// In a content that is not complete: the keys of the rows it held that a change after it
  /// was built removed (what `sync status` needs to know which records the file's tail
  /// touched).
  var removedKeysSinceIndex: [RowID: RecordKey] = [:]
  /// How many lines holding a row's put or removal, a tombstone or a conflict (the lines the
  /// index's history section lists) were applied with their spans: when these are exactly
  /// the live rows' current lines and ``earlierHistory``, the section needs no search of the
  /// file (``HistoryScan/KnownPuts``).
  var historyLines = 0
  /// The lines the history section lists that are not a live row's current line (a row's
  /// earlier put, a removal, a tombstone, a conflict), each with its record, while
  /// ``historyIsTracked``: with ``rowLines`` they are every such line of the file, so that an
  /// index written from a whole content needs no search of the file for its section, even
  /// when no index describes the file (copied, restored or rewritten; issue 26, item 5).
  var earlierHistory: [(span: LineSpan, key: LocalIndex.HistoryKey)] = []
  /// Whether ``earlierHistory`` holds every such line applied (not after a damaged row, a
  /// row that changed record, or more such lines than rows: then the file is searched).
  var historyIsTracked = true
  /// How many changes are live (what a compaction would write).
  public var liveChangeCount: Int {
    rows.count + tombstones.count + checkpoints.count + conflicts.count + diagnostics.count
      + damagedRows.count + 2
  }

  /// Identifies a diagnostic: a key in one store.
  public struct DiagnosticKey: Hashable, Sendable {
    /// The duplicated key.
    public let key: RecordKey
    /// Which store.
    public let store: Diagnostic.Store

    /// The identity of a diagnostic.
    public init(key: RecordKey, store: Diagnostic.Store) {
      self.key = key
      self.store = store
    }
  }

  /// Applies one committed change. Total: every change that could be written can be applied.
  public mutating func apply(_ change: LocalChange) {
    applyChange(change)
    // Whatever it changed, its line is not known.
    forgetLineSpans()
  }

  /// Applies one committed change read from (or written to) `span`.
  public mutating func apply(_ change: LocalChange, at span: LineSpan) {
    if !isComplete, case .removeRow(let row) = change, let key = rows[row]?.record.key {
      removedKeysSinceIndex[row] = key
    }
    // Before the change is applied: it reads the row a put replaces or a removal removes.
    if linesAreKnown, isComplete, historyIsTracked { noteEarlierHistory(of: change, at: span) }
    applyChange(change)
    guard linesAreKnown else { return }
    switch change {
    case .putRow, .removeRow, .damagedRow, .putTombstone, .putConflict: historyLines += 1
    default: break
    }
    switch change {
    case .putRow(let row, _, _):
      rowLines[row] = span
      if !isComplete { changedSinceIndex[row] = .some(span) }
    case .removeRow(let row):
      rowLines[row] = nil
      if !isComplete { changedSinceIndex[row] = .some(nil) }
    case .damagedRow(let damaged):
      rowLines[RowID(damaged.row)] = nil
      if !isComplete { changedSinceIndex[RowID(damaged.row)] = .some(nil) }
    case .putSettings: settingsLine = span
    case .bindCheckpoints:
      bindingLine = span
      noteKeyedLine(of: change, at: span)
    default:
      noteKeyedLine(of: change, at: span)
    }
  }

  /// Forgets where lines are: the file was rewritten.
  public mutating func forgetLineSpans() {
    linesAreKnown = false
    rowLines.removeAll()
    keyedLines = KeyedLines()
    earlierHistory = []
    historyIsTracked = false
  }

  /// Makes room in the row tables for the new rows of a saved transaction before it is
  /// applied: a 100,000-row import grew them by doubling, and the rows' table at its last
  /// doubling (its old and new storage both alive, 31.5 MB) was the import's peak. Only new
  /// rows count (numbered from ``nextRow``): a pass that replaces every row reserves nothing.
  /// The checkpoints (and their lines) get room for those of keys that have none, or for all
  /// of them after a binding (a first sync's pass puts one for every record).
  public mutating func reserveCapacity(forApplying changes: [LocalChange]) {
    guard changes.count >= 1_024 else { return }  // a small save: nothing worth it
    var added = 0
    var last = nextRow
    var newCheckpoints = 0
    var rebinds = false
    for change in changes {
      switch change {
      case .putRow(let row, _, _) where row >= nextRow:
        added += 1
        last = max(last, row)
      case .putCheckpoint(let key, _) where rebinds || checkpoints[key] == nil:
        newCheckpoints += 1
      case .bindCheckpoints:
        rebinds = true
        newCheckpoints = 0
      default: break
      }
    }
    if newCheckpoints >= 1_024 {
      let base = rebinds ? 0 : checkpoints.count
      checkpoints.reserveCapacity(base + newCheckpoints)
      if linesAreKnown { keyedLines.checkpoints.reserveCapacity(base + newCheckpoints) }
    }
    guard added >= 1_024 else { return }
    rows.reserveCapacity(adding: added, through: last)
    rowsByKey.reserveCapacity(rowsByKey.count + added)
    if linesAreKnown { rowLines.reserveCapacity(adding: added, through: last) }
  }

  private mutating func applyChange(_ change: LocalChange) {
    switch change {
    case .putRow(let row, let record, let hash):
      // One lookup of the row (a load or a pass applies 100,000 of these).
      let old = rows.updateValue(StoredRow(row: row, record: record, hash: hash), forKey: row)
      if let old {
        if old.record.key != record.key {
          unindex(row, from: old.record.key)
          rowsByKey[record.key, default: []].append(row)
        }
        fieldIndex.remove(row, old.record)
      } else {
        if !isComplete, row < nextRow { unseenRows.insert(row) }
        rowsByKey[record.key, default: []].append(row)
      }
      fieldIndex.insert(row, record)
      if !damagedRows.isEmpty { damagedRows[row.rawValue] = nil }
      if row >= nextRow { nextRow = RowID(row.rawValue + 1) }
    case .removeRow(let row):
      if !damagedRows.isEmpty { damagedRows[row.rawValue] = nil }
      guard let old = rows.removeValue(forKey: row) else {
        if !isComplete { unseenRows.insert(row) }
        return
      }
      unindex(row, from: old.record.key)
      fieldIndex.remove(row, old.record)
    case .damagedRow(let damaged):
      // The line replaces whatever the row held: the row's latest state cannot be trusted.
      let row = RowID(damaged.row)
      if let old = rows.removeValue(forKey: row) {
        unindex(row, from: old.record.key)
        fieldIndex.remove(row, old.record)
      }
      damagedRows[damaged.row] = damaged
      if RowID.isValid(damaged.row), row >= nextRow { nextRow = RowID(damaged.row + 1) }
    case .putTombstone(let tombstone):
      tombstones[tombstone.key] = tombstone
    case .removeTombstone(let key):
      tombstones[key] = nil
    case .putCheckpoint(let key, let checkpoint):
      checkpoints[key] = checkpoint
    case .removeCheckpoint(let key):
      checkpoints[key] = nil
    case .bindCheckpoints(let mirror):
      checkpoints.removeAll(keepingCapacity: true)  // room a large pass reserved
      checkpointMirror = mirror
    case .putConflict(let conflict):
      conflicts[conflict.id] = conflict
    case .putDiagnostic(let diagnostic):
      diagnostics[DiagnosticKey(key: diagnostic.key, store: diagnostic.store)] = diagnostic
    case .removeDiagnostic(let key, let store):
      diagnostics[DiagnosticKey(key: key, store: store)] = nil
    case .putSettings(let settings):
      self.settings = settings
    }
  }

  private mutating func unindex(_ row: RowID, from key: RecordKey) {
    rowsByKey[key]?.removeAll { $0 == row }
    if rowsByKey[key]?.isEmpty == true { rowsByKey[key] = nil }
  }

  // MARK: Queries

  /// Every row carrying `key` (usually one; more is a duplicate).
  public func rows(for key: RecordKey) -> [StoredRow] {
    rowsByKey.position(of: key).map(rows(atKeyPosition:)) ?? []
  }

  /// Every row carrying the key at `position` of ``rowsByKey``
  /// (``CompactDictionary/position(of:)``, or the place met walking it), without finding the
  /// key again: a pass that walked the table reads each key's rows this way.
  public func rows(atKeyPosition position: Int) -> [StoredRow] {
    rowsByKey.withValue(at: position) { ids in ids.compactMap { rows[$0] } }
  }

  /// The one row carrying `key`, or `nil` when there is none or more than one.
  public func row(for key: RecordKey) -> StoredRow? {
    guard let ids = rowsByKey[key], ids.count == 1 else { return nil }
    return rows[ids[0]]
  }

  /// The live records of a model, in row order.
  public func records(of model: String) -> [Record] {
    rows.values.filter { $0.record.model == model }.map(\.record)  // in row order
  }

  /// Every key that has a row, a tombstone or a checkpoint.
  public var keys: Set<RecordKey> {
    Set(rowsByKey.keys).union(tombstones.keys).union(checkpoints.keys)
  }

  /// Open conflicts on `key`.
  public func openConflicts(for key: RecordKey) -> [SyncConflict] {
    conflicts.values.filter { $0.key == key && $0.state == .open }.sorted { $0.id < $1.id }
  }

  /// Every open conflict, oldest first.
  public var openConflicts: [SyncConflict] {
    conflicts.values.filter { $0.state == .open }.sorted {
      ($0.noticedAt, $0.id) < ($1.noticedAt, $1.id)
    }
  }

  /// The changes that rebuild exactly this content (what compaction writes).
  public var changesForCompaction: [LocalChange] {
    var changes: [LocalChange] = [.putSettings(settings), .bindCheckpoints(checkpointMirror)]
    changes += rows.values.map { .putRow($0.row, $0.record, $0.hash) }  // in row order
    changes += tombstones.values.sorted { $0.key < $1.key }.map { .putTombstone($0) }
    changes += checkpoints.sorted { $0.key < $1.key }.map { .putCheckpoint($0.key, $0.value) }
    changes += conflicts.values.sorted { $0.id < $1.id }.map { .putConflict($0) }
    changes += diagnostics.values.sorted {
      ($0.key, $0.store.rawValue) < ($1.key, $1.store.rawValue)
    }
    .map { .putDiagnostic($0) }
    changes += damagedRows.values.sorted { $0.row < $1.row }.map { .damagedRow($0) }
    return changes
  }
}

extension LocalContent: LogContent {
  public static let format = "stash.local"
  /// Format 4: a checkpoint names the mirror version the local row derives from (`version`),
  /// a conflict the fields in dispute (`fields`), and the settings where the device folder was
  /// (`folder`); a format-3 store has none of them, reads as it is (the next pass names the
  /// versions), and is upgraded on the first save. Format 3: the settings may hold the one-time steps done (`stepsDone`: legacy imports,
  /// duplicate repairs), which a program that does not know them would run again; a format-2
  /// store has none (or those a format-2 program of issue 13 wrote, which are kept), and is
  /// upgraded on the first save. Format 2: a counter field (an item's quantity) may be an
  /// object of epoch, base and tallies; format 1 held plain integers, which read as counters in
  /// their first epoch, and is upgraded on the first save.
  public static let version = 4

  public init(header: LogHeader, context: SchemaRegistry) {
    self.deviceID = header.deviceID
    self.schemas = context
    self.settings = DeviceSettings(name: "")
  }

  public func change(from operation: JSONObject) throws(ModelError) -> LocalChange {
    try LocalChange(json: operation, schemas: schemas)
  }

  public func change(from operation: JSONObject, line: Int) throws(ModelError) -> LocalChange {
    try LocalChange(json: operation, schemas: schemas, line: line)
  }

  public func change(fromBytes operation: UnsafeRawBufferPointer, line: Int) -> LocalChange? {
    LocalChange.read(operation: operation, schemas: schemas)
  }

  public static func operation(for change: LocalChange) -> JSONObject { change.json }

  public static func appendOperation(for change: LocalChange, to bytes: inout [UInt8]) {
    change.appendJSON(to: &bytes)
  }
}
