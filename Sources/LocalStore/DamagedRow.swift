public import StashBase
public import StashModel

/// A `put` line of the local store that is well framed and checksummed, but whose row cannot
/// be trusted: its row number is out of range, its record does not fit its schema or fails
/// its model's checks (a quantity of -5), or it is too large.
///
/// Opening sets such a row aside instead of refusing the whole store: it is not live (no
/// command shows, edits, exports or syncs it), every command warns about it, `stash doctor`
/// lists it as damage, and `stash doctor --repair` moves it to a side file. Until then the
/// line stays in the file exactly as it was, compaction included, so nothing is lost.
public struct DamagedRow: Hashable, Sendable {
  /// The line of the store file it was read from.
  public let line: Int
  /// The row number the line names (maybe out of range).
  public let row: Int64
  /// The record it names, when that much could be read.
  public let key: RecordKey?
  /// What is wrong with it.
  public let reason: String
  /// The operation exactly as read, written back by compaction.
  public let operation: JSONObject

  /// A row set aside.
  public init(line: Int, row: Int64, key: RecordKey?, reason: String, operation: JSONObject) {
    self.line = line
    self.row = row
    self.key = key
    self.reason = reason
    self.operation = operation
  }
}

extension RowID {
  /// The highest row number a store may use: 2^53, so that every row number is exact in any
  /// JSON reader, and adding one to it never overflows.
  public static let maximum: Int64 = 1 << 53

  /// Whether `number` is a row number a store may hold (1 through ``maximum``).
  public static func isValid(_ number: Int64) -> Bool { (1...maximum).contains(number) }
}

/// How large a record of the local store may be.
public enum RecordLimits {
  /// The largest record, as the JSON of its fields in a store line: 64 KiB. An inventory
  /// record is at most about 45 KB (10,000 characters of notes); a conflict holding many full
  /// snapshots of records this size still fits the 1 MiB of a line.
  public static let maximumRecordBytes = 64 << 10

  /// Whether `record` is certainly within ``maximumRecordBytes``, judged without writing it:
  /// an upper bound of its JSON (every byte of every string escaped as `\u00XX`, numbers at
  /// their longest, a counter's devices at 80 bytes each). `false` means "measure it"
  /// (``size(of:)``), not "too large".
  public static func certainlyFits(_ record: Record) -> Bool {
    var bound = 2
    for (field, value) in zip(record.schema.fields, record.values) {
      bound += 6 * field.name.utf8.count + 4
      switch value {
      case .string(let text): bound += 6 * text.utf8.count + 2
      case .reference: bound += 6 * 36 + 2  // an id's text is 36 characters (not made here)
      case .integer, .double, .date, .bool, .none: bound += 40
      case .blob: bound += 200  // a 64-digit hash and a size
      case .bytes(let bytes): bound += 4 * (bytes.count / 3 + 1) + 2  // base64 in quotes
      case .counter(let counter):
        // {"epoch":…,"base":…,"p":{device: units},"n":{…}}: ids are 36 ASCII characters.
        bound += 160 + 80 * (counter.increments.count + counter.decrements.count)
      }
    }
    return bound <= maximumRecordBytes
  }

  /// The size of `record` as a store line holds it.
  public static func size(of record: Record) -> Int {
    var bytes = [UInt8]()
    JSONWriter.write(.object(record.fieldsJSON()), into: &bytes)
    return bytes.count
  }
}
