import Foundation
import JSONLines
import StashModel

/// The index beside `default.store` (`default.store.index`): where the latest line of each
/// live row is, and the line of each tombstone, checkpoint, open conflict and diagnostic, for
/// a known prefix of the store file, sorted so that a lookup reads a few blocks of it instead
/// of all of it.
///
/// It is derived: built from a whole replay of the file, never the truth, and checked every
/// time it is used. Its head has its own checksum; its body is cut into blocks of 4 KiB, each
/// with a CRC-32 listed in the head, and a block is checked each time it is read. Its
/// ``LogPrefix`` must still describe the store file (same file, same probe lines); each line
/// read through it is checksum-verified and decoded like any other line, and must be the row
/// the index says. An index that fails any check, or of another format version (older or
/// newer: it is derived, so a newer one is ignored rather than refused, and rewritten by the
/// next save that writes an index), is not used: the store is read in full.
///
/// Layout (little-endian; Fixtures/README.md section 1.4 has it byte by byte): the magic
/// `stash.local.index\n`, the format version (`UInt32`), the head's length (`UInt64`) and
/// CRC-32 (`UInt32`); the head: the store id, the prefix, the next row number, the settings'
/// and the checkpoint binding's lines, the counts and sizes of the body's four parts and
/// each body block's CRC-32; the body: the entries (one per live row: kind, row, line, model,
/// id, and the lowercased, canonically decomposed name and message that lookups by name
/// compare; then one per tombstone, checkpoint, open conflict and diagnostic: kind, line, its
/// record's model and id, and the conflict's id or the diagnostic's store), then the row
/// entries' offsets sorted by model and id, then (offset, name number) pairs sorted by model
/// and name, then the other entries' offsets sorted by model and id.
struct LocalIndex: Sendable {
  /// The file name's suffix after the store's.
  static let suffix = ".index"
  /// The newest (and only) format this code reads and writes. Format 2 (rows only: no
  /// tombstones, checkpoints, conflicts or diagnostics) and format 1 (one checksum over the
  /// whole file, entries in row order, read in full by every lookup) are ignored.
  static let version: UInt32 = 3
  static let magic = Array("stash.local.index\n".utf8)
  static let fixedLength = magic.count + 4 + 8 + 4
  /// The body's block size: the unit a lookup reads and checks.
  static let blockSize = CheckedBlocks.blockSize
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
  /// The CRC-32 of each block of the body.
  var blockChecksums: [UInt32]
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
    /// For a row: lowercased, canonically decomposed names a lookup by name compares. For a
    /// conflict: its id; for a diagnostic: its store; none for the other kinds.
    var names: [[UInt8]]
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
  /// The body's length.
  var bodyLength: Int { keyTableStart + keyedCount * Self.idSlot }

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

  /// The model, id and names of the entry encoded at `offset` of `raw` (as ``append(_:to:)``
  /// writes it), without copying; `nil` when it does not fit.
  static func keys(in raw: UnsafeRawBufferPointer, at offset: Int) -> (
    model: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, names: [UnsafeRawBufferPointer]
  )? {
    var reader = RawReader(UnsafeRawBufferPointer(rebasing: raw[offset...]))
    guard reader.take(entryFixedLength) != nil, let model = reader.bytes(width: 1),
      let id = reader.bytes(width: 1), let count: UInt8 = reader.integer()
    else { return nil }
    var names = [UnsafeRawBufferPointer]()
    for _ in 0..<count {
      guard let name = reader.bytes(width: 2) else { return nil }
      names.append(name)
    }
    return (model, id, names)
  }

  // MARK: Encoding

  /// The head's bytes (after the fixed part).
  func encodedHead() -> [UInt8] {
    var head = ByteWriter()
    head.bytes(Array(storeID.utf8), width: 2)
    head.integer(prefix.device)
    head.integer(prefix.inode)
    head.integer(prefix.end)
    head.integer(Int64(prefix.lines))
    head.integer(prefix.lastSequence)
    head.integer(UInt32(prefix.probes.count))
    for probe in prefix.probes {
      head.span(probe.span)
      head.integer(probe.checksum)
    }
    head.integer(nextRow)
    head.integer(liveChanges)
    head.span(settingsLine)
    head.integer(UInt8(bindingLine == nil ? 0 : 1))
    if let bindingLine { head.span(bindingLine) }
    head.integer(UInt64(entryCount))
    head.integer(UInt64(entriesLength))
    head.integer(UInt64(nameCount))
    head.integer(UInt64(keyedCount))
    head.integer(UInt64(blockChecksums.count))
    for checksum in blockChecksums { head.integer(checksum) }
    return head.output
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
  }

  // MARK: Decoding

  /// The index whose head `head` holds (checked against `checksum`), for a file of
  /// `fileLength` bytes; `nil` when the head is damaged or does not fit the file.
  init?(head raw: UnsafeRawBufferPointer, checksum: UInt32, fileLength: Int64) {
    guard CRC32.checksum(raw) == checksum else { return nil }
    var reader = RawReader(raw)
    guard let store = reader.bytes(width: 2),
      let storeID = String(validating: store, as: UTF8.self),
      let device: UInt64 = reader.integer(), let inode: UInt64 = reader.integer(),
      let end: Int64 = reader.integer(), let lines: Int64 = reader.integer(),
      let lastSequence: Int64 = reader.integer(), let probeCount: UInt32 = reader.integer(),
      probeCount <= 64
    else { return nil }
    var probes = [LogPrefix.Probe]()
    for _ in 0..<probeCount {
      guard let span = reader.span(), let crc: UInt32 = reader.integer() else { return nil }
      probes.append(LogPrefix.Probe(span: span, checksum: crc))
    }
    guard let nextRow: Int64 = reader.integer(), let liveChanges: Int64 = reader.integer(),
      let settings = reader.span(), let hasBinding: UInt8 = reader.integer(), hasBinding <= 1
    else { return nil }
    var binding: LineSpan?
    if hasBinding == 1 {
      guard let span = reader.span() else { return nil }
      binding = span
    }
    guard let entryCount: UInt64 = reader.integer(), let entriesLength: UInt64 = reader.integer(),
      let nameCount: UInt64 = reader.integer(), let keyedCount: UInt64 = reader.integer(),
      let blockCount: UInt64 = reader.integer(),
      entryCount <= UInt64(fileLength), entriesLength <= UInt64(fileLength),
      nameCount <= UInt64(fileLength), keyedCount <= UInt64(fileLength),
      blockCount <= UInt64(fileLength)
    else { return nil }
    var checksums = [UInt32]()
    checksums.reserveCapacity(Int(blockCount))
    for _ in 0..<blockCount {
      guard let crc: UInt32 = reader.integer() else { return nil }
      checksums.append(crc)
    }
    guard reader.isAtEnd else { return nil }
    self.init(
      storeID: storeID,
      prefix: LogPrefix(
        device: device, inode: inode, end: end, lastSequence: lastSequence, lines: Int(lines),
        probes: probes),
      nextRow: nextRow, liveChanges: liveChanges, settingsLine: settings, bindingLine: binding,
      entryCount: Int(entryCount), entriesLength: Int(entriesLength), nameCount: Int(nameCount),
      keyedCount: Int(keyedCount), blockChecksums: checksums)
    headChecksum = checksum
    let blocks = (bodyLength + Self.blockSize - 1) / Self.blockSize
    guard blocks == checksums.count,
      Int64(Self.fixedLength + raw.count + bodyLength) == fileLength
    else { return nil }
  }

  /// The head of an index file's bytes (as ``Builder`` encodes them); `nil` when they are not
  /// a whole index of this format (the body's blocks are not checked).
  init?(decoding bytes: [UInt8]) {
    let found: LocalIndex? = bytes.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let fixed = Self.fixedPart(raw), reader.take(Self.fixedLength) != nil,
        let head = reader.take(Int(clamping: fixed.headLength))
      else { return nil }
      return LocalIndex(head: head, checksum: fixed.headChecksum, fileLength: Int64(raw.count))
    }
    guard let found else { return nil }
    self = found
  }

  /// The head's length and checksum from the fixed part at the start of `raw` (the magic and
  /// this format's version); `nil` for another file or another version.
  static func fixedPart(_ raw: UnsafeRawBufferPointer) -> (
    headLength: UInt64, headChecksum: UInt32
  )? {
    var reader = RawReader(raw)
    guard reader.take(magic.count).map(Array.init) == magic,
      let found: UInt32 = reader.integer(), found == version,
      let length: UInt64 = reader.integer(), let checksum: UInt32 = reader.integer()
    else { return nil }
    return (length, checksum)
  }

  init(
    storeID: String, prefix: LogPrefix, nextRow: Int64, liveChanges: Int64,
    settingsLine: LineSpan, bindingLine: LineSpan?, entryCount: Int, entriesLength: Int,
    nameCount: Int, keyedCount: Int, blockChecksums: [UInt32]
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
    self.blockChecksums = blockChecksums
  }
}
