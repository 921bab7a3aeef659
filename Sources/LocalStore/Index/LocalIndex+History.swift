import JSONLines
import StashBase
import StashFiles
import StashModel

extension LocalIndex {
  /// A record as the history section names it: the 64-bit FNV-1a hash of its model's bytes,
  /// a zero byte and its id's bytes. Two records may share one (their lines then share a
  /// history record): a reader keeps only the lines about the record it asked for, as the
  /// search of the whole file does.
  struct HistoryKey: Hashable, Comparable, Sendable {
    let hash: UInt64

    init(model: [UInt8], id: [UInt8]) {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in model + [0] + id {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
      }
      self.hash = hash
    }

    init(hash: UInt64) { self.hash = hash }

    static func < (a: Self, b: Self) -> Bool { a.hash < b.hash }
  }

  /// The history section of an index being written: each record's lines, records in key
  /// (hash) order, then their offsets (the history table).
  ///
  /// ```
  /// record = u64 hash  u32 count  (i64 offset  u32 length  u32 line)×count
  /// ```
  struct HistorySection: Sendable {
    /// The records' bytes.
    private(set) var records: [UInt8] = []
    /// Each record's offset in `records`.
    private(set) var offsets: [UInt32] = []
    private var last: HistoryKey?

    /// Appends a record's lines (in file order); `false` when it is out of key order, a line
    /// number passes 32 bits, or the section would pass the 4 GiB its offsets can name.
    mutating func append(_ key: HistoryKey, _ spans: [LineSpan]) -> Bool {
      guard last.map({ $0 < key }) ?? true, let offset = UInt32(exactly: records.count),
        let count = UInt32(exactly: spans.count)
      else { return false }
      var writer = ByteWriter()
      writer.integer(key.hash)
      writer.integer(count)
      for span in spans {
        guard let length = UInt32(exactly: span.length), let line = UInt32(exactly: span.line)
        else { return false }
        writer.integer(span.offset)
        writer.integer(length)
        writer.integer(line)
      }
      records += writer.output
      offsets.append(offset)
      last = key
      return true
    }
  }

  /// The bytes of one line in a history record (offset, length, line number).
  static let historySpanLength = 16
}

/// The lines after a prefix (or of a whole file) about each record, as a scan of the store
/// file finds them: the row puts, row removals, tombstones and conflicts (what
/// ``LocalStore/log(of:fileSystem:)`` reads).
struct HistoryScan {
  /// Each record's lines, in file order.
  var lines: [LocalIndex.HistoryKey: [LineSpan]] = [:]
  /// The removals of rows no line of the scan put, by row: whose they are is in the index of
  /// the prefix (its live rows).
  var unresolved: [Int64: [LineSpan]] = [:]

  /// The needles that find an operation line of those kinds.
  private static let needles = ["put", "remove", "tombstone", "conflict"].map {
    Array(#""op":{"\#($0)":"#.utf8)
  }

  /// Scans `log` after `start` (`nil`: the whole file); `nil` when the file cannot be read
  /// or a line found fails its check. A line `known` holds is not decoded again: its row and
  /// record are taken from there (``KnownPuts``).
  static func scan(
    _ log: Log, after start: (end: Int64, lines: Int)?, known: KnownPuts? = nil
  ) -> HistoryScan? {
    historyCensus.note(log.path + " scans")
    var scan = HistoryScan()
    var rowKeys = [Int64: [LocalIndex.HistoryKey]]()
    var failed = false
    do {
      try log.lines(holdingAnyOf: needles, after: start) { span, text in
        guard !failed else { return }
        if let put = known?.put(at: span) {
          scan.notePut(put.key, row: put.row, at: span, rowKeys: &rowKeys)
          return
        }
        historyCensus.note(log.path)
        guard let operation = log.operation(inLine: text) else {
          failed = true
          return
        }
        scan.note(operation, at: span, rowKeys: &rowKeys)
      }
    } catch {
      return nil
    }
    return failed ? nil : scan
  }

  /// Notes one operation found at `span`.
  private mutating func note(
    _ operation: JSONObject, at span: LineSpan, rowKeys: inout [Int64: [LocalIndex.HistoryKey]]
  ) {
    guard operation.count == 1, let (name, value) = operation.first(where: { _ in true }),
      case .object(let body) = value
    else { return }
    func key(_ idField: String) -> LocalIndex.HistoryKey? {
      guard case .string(let model)? = body["model"], case .string(let id)? = body[idField]
      else { return nil }
      return LocalIndex.HistoryKey(model: Array(model.utf8), id: Array(id.utf8))
    }
    switch name {
    case "put":
      guard let key = key("id") else { return }
      guard case .integer(let row)? = body["row"] else {
        lines[key, default: []].append(span)
        return
      }
      notePut(key, row: row, at: span, rowKeys: &rowKeys)
    case "remove":
      guard case .integer(let row)? = body["row"] else { return }
      if let keys = rowKeys.removeValue(forKey: row) {
        for key in keys { lines[key, default: []].append(span) }
      } else {
        unresolved[row, default: []].append(span)
      }
    case "tombstone":
      if let key = key("id") { lines[key, default: []].append(span) }
    case "conflict":
      if let key = key("recordID") { lines[key, default: []].append(span) }
    default:
      return
    }
  }

  /// Notes the put line at `span` of `key`'s record into `row`.
  private mutating func notePut(
    _ key: LocalIndex.HistoryKey, row: Int64, at span: LineSpan,
    rowKeys: inout [Int64: [LocalIndex.HistoryKey]]
  ) {
    lines[key, default: []].append(span)
    if !(rowKeys[row] ?? []).contains(key) { rowKeys[row, default: []].append(key) }
  }

  /// Gives the removals of `row` to `key` (the record the index of the prefix held there).
  mutating func resolve(row: Int64, to key: LocalIndex.HistoryKey) {
    guard let spans = unresolved.removeValue(forKey: row) else { return }
    lines[key, default: []] += spans
  }

  /// The history section: `old`'s records (the index of the prefix this scan started after;
  /// `nil` for a scan of the whole file) with this scan's lines after each; `nil` when the
  /// old section fails a check or a record does not fit.
  func section(carrying old: IndexReader?) -> LocalIndex.HistorySection? {
    var section = LocalIndex.HistorySection()
    let added = lines.keys.sorted()
    var next = 0
    var fits = true
    func spans(of key: LocalIndex.HistoryKey) -> [LineSpan] {
      (lines[key] ?? []).sorted { $0.offset < $1.offset }
    }
    if let old {
      let whole = old.forEachHistoryRecord { key, carried in
        while next < added.count, added[next] < key {
          fits = fits && section.append(added[next], spans(of: added[next]))
          next += 1
        }
        var merged = carried
        if next < added.count, added[next] == key {
          merged += spans(of: key)
          next += 1
        }
        fits = fits && section.append(key, merged)
      }
      guard whole else { return nil }
    }
    while next < added.count {
      fits = fits && section.append(added[next], spans(of: added[next]))
      next += 1
    }
    return fits ? section : nil
  }
}

extension IndexReader {
  /// The history record at `offset` of the history section, and where the next one starts;
  /// `nil` when it does not fit or a block fails its check.
  private func historyRecord(at offset: Int) -> (
    key: LocalIndex.HistoryKey, spans: [LineSpan], next: Int
  )? {
    let region = index.historyStart..<index.historyTableStart
    var position = region.lowerBound + offset
    guard let head = bytes(at: position, count: 12, in: region) else { return nil }
    let (hash, count) = head.withUnsafeBytes {
      (
        UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)),
        Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
      )
    }
    position += 12
    guard count <= index.historyLength,
      let raw = bytes(at: position, count: count * LocalIndex.historySpanLength, in: region)
    else { return nil }
    let spans: [LineSpan]? = raw.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      var spans = [LineSpan]()
      spans.reserveCapacity(count)
      for _ in 0..<count {
        guard let offset: Int64 = reader.integer(), let length: UInt32 = reader.integer(),
          let line: UInt32 = reader.integer()
        else { return nil }
        spans.append(LineSpan(offset: offset, length: Int(length), line: Int(line)))
      }
      return spans
    }
    guard let spans else { return nil }
    position += count * LocalIndex.historySpanLength
    return (LocalIndex.HistoryKey(hash: hash), spans, position - region.lowerBound)
  }

  /// The lines of the prefix about the record `model` and `id`, in file order (none when
  /// the history section lists none; lines of another record whose key has the same hash
  /// too); `nil` when the index has no history section or a block fails its check.
  func historyLines(model: [UInt8], id: [UInt8]) -> [LineSpan]? {
    guard index.hasHistory else { return nil }
    let target = LocalIndex.HistoryKey(model: model, id: id)
    let table = index.historyTableStart..<index.statusStart
    var low = 0
    var high = index.historyCount
    var found: (key: LocalIndex.HistoryKey, spans: [LineSpan])?
    while low < high {
      let middle = low + (high - low) / 2
      guard
        let offset = bytes(at: table.lowerBound + middle * LocalIndex.idSlot, count: 4, in: table)?
          .withUnsafeBytes({ UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }),
        let record = historyRecord(at: Int(offset))
      else { return nil }
      if record.key < target {
        low = middle + 1
      } else {
        high = middle
        found = (record.key, record.spans)
      }
    }
    guard let found, found.key == target else { return [] }
    return found.spans
  }

  /// Calls `body` with every record of the history section, in key order; `false` when there
  /// is none, a block fails its check or the records are malformed.
  func forEachHistoryRecord(_ body: (LocalIndex.HistoryKey, [LineSpan]) -> Void) -> Bool {
    guard index.hasHistory else { return false }
    var offset = 0
    for _ in 0..<index.historyCount {
      guard let record = historyRecord(at: offset) else { return false }
      body(record.key, record.spans)
      offset = record.next
    }
    return offset == index.historyLength
  }
}
