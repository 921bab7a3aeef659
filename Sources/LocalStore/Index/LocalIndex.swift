import Foundation
import JSONLines
import StashFiles
import StashModel

/// The index beside `default.store` (`default.store.index`): where the latest line of each
/// live row is, and the line of each tombstone, checkpoint, open conflict and diagnostic, for
/// a known prefix of the store file, sorted so that a lookup reads a few blocks of it instead
/// of all of it.
///
/// It is derived: built from a whole replay of the file, never the truth, and checked every
/// time it is used. It is a ``DerivedFile`` (a checksummed head, 4 KiB body blocks with a
/// CRC-32 each) whose source is the store's id and the prefix it covers; that ``LogPrefix``
/// must still describe the store file (same file, same probe lines); each line read through
/// it is checksum-verified and decoded like any other line, and must be the row the index
/// says. An index that fails any check, or of another format version (older or newer: it is
/// derived, so a newer one is ignored rather than refused, and rewritten by the next save that
/// writes an index), is not used: the store is read in full.
///
/// Layout (Fixtures/README.md section 8 has it byte by byte): the kind's head holds the next
/// row number, the count of live changes, the settings' and the checkpoint binding's lines
/// the counts and sizes of the body's parts and the field table's declaration; the body: the
/// entries (one per live row: kind, row, line, model, id, the lowercased, canonically
/// decomposed values of its schema's lookup fields (``Record/lookupNames``) that lookups by
/// name compare, and its indexed fields' sort keys; then one
/// per tombstone, checkpoint, open conflict and diagnostic: kind, line, its record's model
/// and id, and the conflict's id or the diagnostic's store), then the row entries' offsets
/// sorted by model and id, then (offset, name number) pairs sorted by model and name, then
/// the other entries' offsets sorted by model and id, then the field table, then the history
/// section, then the status section, then the digest section.
///
/// The history section is what `history ITEM` reads (``LocalStore/log(of:fileSystem:)``):
/// for each record, every line of the prefix about it (each version of its rows, their
/// removals, its tombstones, its conflicts in every state), by model and id, so that it reads
/// those lines and the file after the prefix, not the file. A rewrite carries it forward
/// from the index it replaces with the lines after that one's prefix (a whole-file scan only
/// when there is no such index: the first index of a file).
///
/// The field table is what a query over a schema's indexed fields (``Schema/indexedIndices``)
/// reads: one slot per indexed field of each row entry (which holds the field's position and
/// its value's sort key, ``fieldKey(_:)``), sorted by model, field, value and row, so that
/// equality and ranges are a binary search. The head binds it to the indexed fields it was
/// written for (``declaration(of:)``): an index of other declarations is not used.
///
/// The digest section is what a sync derives from the whole store for `sync status` and
/// `sync verify` (the inventory digest's entries and bucket hashes): this store only carries
/// it, never reads it. It is bound to the store's id like the rest of the index, but not to
/// the prefix: a save that writes the index again carries it forward as it was, and its
/// reader compares it with the store, record by record (``LocalStore/indexedDigest()``).
struct LocalIndex: Sendable {
  /// The file name's suffix after the store's.
  static let suffix = ".index"
  /// The kind: format 9, whose digest section holds each model's entries grouped by bucket
  /// (so that `sync status` reads only the buckets that changed), with the history section,
  /// and a status section that lists the records changed since the sync that wrote it (a save
  /// that writes the index again carries it forward). Format 8 (the digest section's entries
  /// of a model in one run by id; `Fixtures/formats/index-8`), format 7 (a status
  /// section without them, dropped by every rewrite, and no history section;
  /// `Fixtures/formats/index-7`), format 6
  /// (without the open conflicts' count and the status section; `Fixtures/formats/index-6`),
  /// format 5 (the digest section, without the
  /// field table; `Fixtures/formats/index-5`), format 4
  /// (the first in the one derived-file container, without the digest), format 3 (its own
  /// head), format 2 (rows only: no tombstones, checkpoints, conflicts or diagnostics) and
  /// format 1 (one checksum over the whole file, entries in row order, read in full by every
  /// lookup) are ignored.
  static let kind = DerivedFile(tag: "stash.local.index", version: 9)
  /// The bytes of one slot of the id table (an entry's offset).
  static let idSlot = 4
  /// The bytes of one slot of the name table (an entry's offset and which of its names).
  static let nameSlot = 5

  /// Which store wrote it.
  var storeID: String
  /// The prefix of the store file it covers.
  var prefix: LogPrefix
  /// The next unused row number at the end of the prefix.
  var nextRow: Int64
  /// How many changes a compaction of the prefix would write (a store opened from the index
  /// uses it to know when the file is due for compaction).
  var liveChanges: Int64
  /// The settings' line.
  var settingsLine: LineSpan
  /// The checkpoint binding's line, if there is one.
  var bindingLine: LineSpan?
  /// How many row entries there are (one per live row: the id table's slots).
  var entryCount: Int
  /// The byte length of the entries (the body's first part).
  var entriesLength: Int
  /// How many names the name table lists.
  var nameCount: Int
  /// How many entries of the other kinds there are (the key table's slots).
  var keyedCount: Int = 0
  /// The byte length of the digest section (the body's last part; 0 when there is none).
  var digestLength: Int = 0
  /// How many slots the field table has (one per indexed field of each row entry).
  var fieldCount: Int = 0
  /// The CRC-32 of the indexed fields the field table was written for (``declaration(of:)``).
  var declaration: UInt32 = 0
  /// How many open conflicts the prefix leaves (the conflict entries).
  var openConflicts: Int = 0
  /// The byte length of the status section (before the digest section; 0 when there is none).
  var statusLength: Int = 0
  /// Whether the history section lists every line of the prefix about each record (`false`:
  /// there is none, and `history` reads the store file).
  var hasHistory = false
  /// How many records the history section lists (the history table's slots).
  var historyCount: Int = 0
  /// The byte length of the history section's records.
  var historyLength: Int = 0
  /// The head's checksum: two heads with equal checksums and prefixes describe one file.
  var headChecksum: UInt32 = 0

  /// What an entry stands for.
  enum Kind: UInt8, Sendable {
    /// A live row (found by id, id prefix and name).
    case row = 0
    /// A record's tombstone.
    case tombstone = 1
    /// A record's checkpoint.
    case checkpoint = 2
    /// An open conflict on a record (``Entry/names`` holds its id).
    case conflict = 3
    /// A duplicate diagnostic on a record (``Entry/names`` holds its store).
    case diagnostic = 4
  }

  /// The bytes every entry starts with: kind (1), row (8), line (offset 8, length 4, line 8).
  static let entryFixedLength = 29

  /// One live row, or one tombstone, checkpoint, open conflict or diagnostic, as the index
  /// records it.
  struct Entry: Sendable {
    var kind: Kind = .row
    /// The row (0 for the other kinds).
    var row: Int64
    var span: LineSpan
    var model: [UInt8]
    var id: [UInt8]
    /// For a row: its lookup names (``Record/lookupNames``), lowercased and canonically
    /// decomposed, as a lookup by name compares them. For a
    /// conflict: its id; for a diagnostic: its store; none for the other kinds.
    var names: [[UInt8]]
    /// For a row: its indexed fields, each its position (one byte) and its value's sort key
    /// (``LocalIndex/fieldKey(_:)``); none for the other kinds.
    var fields: [[UInt8]] = []
  }

  /// The form names are compared in: lowercased (as ``String/lowercased()``), then
  /// canonically decomposed, so that two canonically equivalent names (which Swift's `==`
  /// finds equal) have the same bytes.
  static func searchForm(_ text: String) -> [UInt8] {
    // ASCII (most names) lowercases byte by byte and is its own decomposition.
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
      return text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
    return Array(text.lowercased().decomposedStringWithCanonicalMapping.utf8)
  }

  /// Where the id table starts in the body.
  var idTableStart: Int { entriesLength }
  /// Where the name table starts in the body.
  var nameTableStart: Int { entriesLength + entryCount * Self.idSlot }
  /// Where the key table (the other kinds' entries by model and id) starts in the body.
  var keyTableStart: Int { nameTableStart + nameCount * Self.nameSlot }
  /// Where the field table starts in the body.
  var fieldTableStart: Int { keyTableStart + keyedCount * Self.idSlot }
  /// Where the history section's records start in the body.
  var historyStart: Int { fieldTableStart + fieldCount * Self.fieldSlot }
  /// Where the history table (the records' offsets, by model and id) starts in the body.
  var historyTableStart: Int { historyStart + historyLength }
  /// Where the status section starts in the body.
  var statusStart: Int { historyTableStart + historyCount * Self.idSlot }
  /// Where the digest section starts in the body.
  var digestStart: Int { statusStart + statusLength }
  /// The body's length.
  var bodyLength: Int { digestStart + digestLength }

  /// Whether `a` sorts before `b`: by model, then by key (id or name), bytewise. The writer
  /// sorts with it and the reader searches with it.
  static func precedes(
    _ a: (model: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer),
    _ b: (model: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer)
  ) -> Bool {
    let models = compareBytes(a.model, b.model)
    return models != 0 ? models < 0 : compareBytes(a.key, b.key) < 0
  }

  /// Whether `a` sorts before `b` (arrays).
  static func precedes(_ a: (model: [UInt8], key: [UInt8]), _ b: (model: [UInt8], key: [UInt8]))
    -> Bool
  {
    a.model.withUnsafeBytes { am in
      a.key.withUnsafeBytes { ak in
        b.model.withUnsafeBytes { bm in
          b.key.withUnsafeBytes { bk in precedes((am, ak), (bm, bk)) }
        }
      }
    }
  }

  /// Negative, zero or positive as `a` sorts before, equal to or after `b`, bytewise (shorter
  /// first when one starts the other).
  static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0 {
      let order = memcmp(a.baseAddress!, b.baseAddress!, common)
      if order != 0 { return Int(order) }
    }
    return a.count - b.count
  }

  /// The row, model, id, names and fields of the entry encoded at `offset` of `raw` (as
  /// ``append(_:to:)`` writes it), without copying; `nil` when it does not fit.
  static func keys(in raw: UnsafeRawBufferPointer, at offset: Int) -> EncodedKeys? {
    var reader = RawReader(UnsafeRawBufferPointer(rebasing: raw[offset...]))
    guard let (row, model) = entryModel(&reader), let id = reader.bytes(width: 1) else {
      return nil
    }
    // Each list sized once (none allocated when empty): this runs for every entry of a
    // store's index.
    func list() -> [UnsafeRawBufferPointer]? {
      guard let count: UInt8 = reader.integer() else { return nil }
      guard count > 0 else { return [] }
      var list = [UnsafeRawBufferPointer]()
      list.reserveCapacity(Int(count))
      for _ in 0..<count {
        guard let bytes = reader.bytes(width: 2) else { return nil }
        list.append(bytes)
      }
      return list
    }
    guard let names = list(), let fields = list() else { return nil }
    return EncodedKeys(row: row, model: model, id: id, names: names, fields: fields)
  }

  /// The model of the encoded entry at `offset` of `raw`, read without its other keys.
  static func model(in raw: UnsafeRawBufferPointer, at offset: Int) -> UnsafeRawBufferPointer? {
    var reader = RawReader(UnsafeRawBufferPointer(rebasing: raw[offset...]))
    return entryModel(&reader)?.model
  }

  /// Reads an entry's kind, row and fixed fields, and its model.
  private static func entryModel(_ reader: inout RawReader) -> (
    row: Int64, model: UnsafeRawBufferPointer
  )? {
    guard reader.take(1) != nil, let row: Int64 = reader.integer(),
      reader.take(entryFixedLength - 9) != nil, let model = reader.bytes(width: 1)
    else { return nil }
    return (row, model)
  }

  /// The keys of an encoded entry (``keys(in:at:)``).
  struct EncodedKeys {
    let row: Int64
    let model: UnsafeRawBufferPointer
    let id: UnsafeRawBufferPointer
    let names: [UnsafeRawBufferPointer]
    let fields: [UnsafeRawBufferPointer]
  }

  // MARK: Encoding

  /// The kind's head.
  func encodedHead() -> [UInt8] {
    var head = ByteWriter()
    head.integer(nextRow)
    head.integer(liveChanges)
    head.span(settingsLine)
    head.integer(UInt8(bindingLine == nil ? 0 : 1))
    if let bindingLine { head.span(bindingLine) }
    head.integer(UInt64(entryCount))
    head.integer(UInt64(entriesLength))
    head.integer(UInt64(nameCount))
    head.integer(UInt64(keyedCount))
    head.integer(UInt64(digestLength))
    head.integer(UInt64(fieldCount))
    head.integer(declaration)
    head.integer(UInt64(openConflicts))
    head.integer(UInt64(statusLength))
    head.integer(UInt8(hasHistory ? 1 : 0))
    head.integer(UInt64(historyCount))
    head.integer(UInt64(historyLength))
    return head.output
  }

  /// At most how many bytes ``encodedHead()`` writes (nine integers, two spans, a flag and the
  /// declaration, well within this), for a body that reserves room for what precedes it.
  static let headLength = 256

  /// The file's bytes for this head and `body` (the body's buffer, when it has room for
  /// what precedes it: ``DerivedFile/encode(source:head:body:)``).
  func encoded(body: consuming [UInt8]) -> [UInt8] {
    Self.kind.encode(
      source: .store(id: storeID, prefix: prefix), head: encodedHead(), body: body)
  }

  /// Appends one entry to the entries being written.
  static func append(_ entry: Entry, to writer: inout ByteWriter) {
    writer.integer(entry.kind.rawValue)
    writer.integer(entry.row)
    writer.span(entry.span)
    writer.bytes(entry.model, width: 1)
    writer.bytes(entry.id, width: 1)
    writer.integer(UInt8(entry.names.count))
    for name in entry.names { writer.bytes(name, width: 2) }
    writer.integer(UInt8(entry.fields.count))
    for field in entry.fields { writer.bytes(field, width: 2) }
  }

  // MARK: Decoding

  /// The index a derived file's `source` and kind's `head` describe, for a body of
  /// `bodyLength` bytes; `nil` when the head does not fit.
  init?(source: DerivedFile.Source, head raw: [UInt8], checksum: UInt32, bodyLength: Int) {
    guard case .store(let storeID, let prefix?) = source else { return nil }
    let parsed: LocalIndex? = raw.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let nextRow: Int64 = reader.integer(), let liveChanges: Int64 = reader.integer(),
        let settings = reader.span(), let hasBinding: UInt8 = reader.integer(), hasBinding <= 1
      else { return nil }
      var binding: LineSpan?
      if hasBinding == 1 {
        guard let span = reader.span() else { return nil }
        binding = span
      }
      let limit = UInt64(bodyLength)
      guard let entryCount: UInt64 = reader.integer(),
        let entriesLength: UInt64 = reader.integer(), let nameCount: UInt64 = reader.integer(),
        let keyedCount: UInt64 = reader.integer(), let digestLength: UInt64 = reader.integer(),
        let fieldCount: UInt64 = reader.integer(), let declaration: UInt32 = reader.integer(),
        let openConflicts: UInt64 = reader.integer(), let statusLength: UInt64 = reader.integer(),
        let hasHistory: UInt8 = reader.integer(), hasHistory <= 1,
        let historyCount: UInt64 = reader.integer(), let historyLength: UInt64 = reader.integer(),
        entryCount <= limit, entriesLength <= limit, nameCount <= limit, keyedCount <= limit,
        digestLength <= limit, fieldCount <= limit, openConflicts <= limit,
        statusLength <= limit, historyCount <= limit, historyLength <= limit, reader.isAtEnd
      else { return nil }
      return LocalIndex(
        storeID: storeID, prefix: prefix, nextRow: nextRow, liveChanges: liveChanges,
        settingsLine: settings, bindingLine: binding, entryCount: Int(entryCount),
        entriesLength: Int(entriesLength), nameCount: Int(nameCount),
        keyedCount: Int(keyedCount), digestLength: Int(digestLength),
        fieldCount: Int(fieldCount), declaration: declaration, openConflicts: Int(openConflicts),
        statusLength: Int(statusLength), hasHistory: hasHistory == 1,
        historyCount: Int(historyCount), historyLength: Int(historyLength))
    }
    guard var parsed, parsed.bodyLength == bodyLength else { return nil }
    parsed.headChecksum = checksum
    self = parsed
  }

  /// The head of an index file's bytes this process just encoded; `nil` when they are not a
  /// whole index of this format (the body's blocks are not checked).
  init?(decoding bytes: [UInt8]) {
    guard case .success(let file) = Self.kind.decode(bytes, checkingBody: false) else {
      return nil
    }
    self.init(
      source: file.source, head: file.head, checksum: file.headChecksum,
      bodyLength: file.body.count)
  }

  init(
    storeID: String, prefix: LogPrefix, nextRow: Int64, liveChanges: Int64,
    settingsLine: LineSpan, bindingLine: LineSpan?, entryCount: Int, entriesLength: Int,
    nameCount: Int, keyedCount: Int, digestLength: Int, fieldCount: Int, declaration: UInt32,
    openConflicts: Int = 0, statusLength: Int = 0, hasHistory: Bool = false,
    historyCount: Int = 0, historyLength: Int = 0
  ) {
    self.storeID = storeID
    self.prefix = prefix
    self.nextRow = nextRow
    self.liveChanges = liveChanges
    self.settingsLine = settingsLine
    self.bindingLine = bindingLine
    self.entryCount = entryCount
    self.entriesLength = entriesLength
    self.nameCount = nameCount
    self.keyedCount = keyedCount
    self.digestLength = digestLength
    self.fieldCount = fieldCount
    self.declaration = declaration
    self.openConflicts = openConflicts
    self.statusLength = statusLength
    self.hasHistory = hasHistory
    self.historyCount = historyCount
    self.historyLength = historyLength
  }
}
