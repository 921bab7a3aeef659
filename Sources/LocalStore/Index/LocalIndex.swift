import Foundation
public import JSONLines
import StashModel

/// The index beside `default.store` (`default.store.index`): where the latest line of each
/// live row is, for a known prefix of the store file.
///
/// It is derived: built from a whole replay of the file, never the truth, and checked every
/// time it is used. Its own checksum covers every byte after its fixed head; its
/// ``LogPrefix`` must still describe the store file (same file, same probe lines); each line
/// read through it is checksum-verified and decoded like any other line, and must be the row
/// the index says. An index that fails any check, or of another format version (older or
/// newer: it is derived, so a newer one is ignored rather than refused, and rewritten by the
/// next save that writes an index), is not used: the store is read in full.
///
/// Layout (little-endian): the magic `stash.local.index\n`, the format version (`UInt32`),
/// the body's length (`UInt64`) and CRC-32 (`UInt32`), then the body: the store id, the
/// prefix, the next row number, the settings' and the checkpoint binding's lines, and one
/// entry per live row (row, line, model, id, and the lowercased, canonically decomposed name
/// and message that lookups by name compare).
struct LocalIndex {
  /// The file name's suffix after the store's.
  static let suffix = ".index"
  /// The newest (and only) format this code reads and writes.
  static let version: UInt32 = 1
  static let magic = Array("stash.local.index\n".utf8)
  static let headLength = magic.count + 4 + 8 + 4

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
  /// The entries, still encoded (a lookup scans them without decoding them all): the bytes
  /// of `entries` from `entriesStart` on.
  var entries: [UInt8]
  var entriesStart = 0
  /// How many entries there are.
  var entryCount: Int

  /// One live row as the index records it.
  struct Entry {
    var row: Int64
    var span: LineSpan
    var model: [UInt8]
    var id: [UInt8]
    /// Lowercased, canonically decomposed names a lookup by name compares.
    var names: [[UInt8]]
  }

  /// The form names are compared in: lowercased (as ``String/lowercased()``), then
  /// canonically decomposed, so that two canonically equivalent names (which Swift's `==`
  /// finds equal) have the same bytes.
  static func searchForm(_ text: String) -> [UInt8] {
    Array(text.lowercased().decomposedStringWithCanonicalMapping.utf8)
  }

  // MARK: Encoding

  /// The file's bytes.
  func encoded() -> [UInt8] {
    var body = ByteWriter()
    body.bytes(Array(storeID.utf8), width: 2)
    body.integer(prefix.device)
    body.integer(prefix.inode)
    body.integer(prefix.end)
    body.integer(Int64(prefix.lines))
    body.integer(prefix.lastSequence)
    body.integer(UInt32(prefix.probes.count))
    for probe in prefix.probes {
      body.span(probe.span)
      body.integer(probe.checksum)
    }
    body.integer(nextRow)
    body.integer(liveChanges)
    body.span(settingsLine)
    body.integer(UInt8(bindingLine == nil ? 0 : 1))
    if let bindingLine { body.span(bindingLine) }
    body.integer(UInt64(entryCount))
    body.output += entries[entriesStart...]
    var out = ByteWriter()
    out.output = LocalIndex.magic
    out.integer(LocalIndex.version)
    out.integer(UInt64(body.output.count))
    out.integer(CRC32.checksum(body.output))
    out.output += body.output
    return out.output
  }

  /// Appends one entry to the entries being written.
  static func append(_ entry: Entry, to writer: inout ByteWriter) {
    writer.integer(entry.row)
    writer.span(entry.span)
    writer.bytes(entry.model, width: 1)
    writer.bytes(entry.id, width: 1)
    writer.integer(UInt8(entry.names.count))
    for name in entry.names { writer.bytes(name, width: 2) }
  }

  /// Reads an index file's bytes; `nil` when they are not a whole index of this version.
  init?(decoding bytes: [UInt8]) {
    guard let head = bytes.withUnsafeBytes({ Self.head(of: $0, file: bytes) }) else {
      return nil
    }
    self = head
  }

  /// The index `raw` (the bytes of `file`) holds, its entries still encoded, or `nil`.
  private static func head(of raw: UnsafeRawBufferPointer, file: [UInt8]) -> LocalIndex? {
    var reader = RawReader(raw)
    guard reader.take(LocalIndex.magic.count).map(Array.init) == LocalIndex.magic,
      let version: UInt32 = reader.integer(), version == LocalIndex.version,
      let length: UInt64 = reader.integer(), let checksum: UInt32 = reader.integer(),
      length == UInt64(raw.count - LocalIndex.headLength),
      CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[LocalIndex.headLength...])) == checksum,
      let store = reader.bytes(width: 2), let storeID = String(validating: store, as: UTF8.self),
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
      let settings = reader.span(),
      let hasBinding: UInt8 = reader.integer()
    else { return nil }
    var binding: LineSpan?
    if hasBinding == 1 {
      guard let span = reader.span() else { return nil }
      binding = span
    }
    guard let count: UInt64 = reader.integer(), count <= UInt64(raw.count) else { return nil }
    var index = LocalIndex(
      storeID: storeID,
      prefix: LogPrefix(
        device: device, inode: inode, end: end, lastSequence: lastSequence, lines: Int(lines),
        probes: probes),
      nextRow: nextRow, liveChanges: liveChanges, settingsLine: settings, bindingLine: binding,
      entries: file, entryCount: Int(count))
    index.entriesStart = reader.position
    return index
  }

  init(
    storeID: String, prefix: LogPrefix, nextRow: Int64, liveChanges: Int64,
    settingsLine: LineSpan, bindingLine: LineSpan?, entries: [UInt8], entryCount: Int
  ) {
    self.storeID = storeID
    self.prefix = prefix
    self.nextRow = nextRow
    self.liveChanges = liveChanges
    self.settingsLine = settingsLine
    self.bindingLine = bindingLine
    self.entries = entries
    self.entryCount = entryCount
  }

  /// An entry's names, still encoded: each a `UInt16` length and its bytes.
  struct EncodedNames {
    let raw: UnsafeRawBufferPointer

    /// Whether one of the names is exactly `bytes`.
    func contains(_ bytes: [UInt8]) -> Bool {
      var reader = RawReader(raw)
      while let name = reader.bytes(width: 2) {
        if name.hasBytes(bytes) { return true }
      }
      return false
    }

    /// The names, copied.
    var decoded: [[UInt8]] {
      var reader = RawReader(raw)
      var names = [[UInt8]]()
      while let name = reader.bytes(width: 2) { names.append(Array(name)) }
      return names
    }
  }

  /// Calls `body` with each entry for which `matches` (given its model, id and names, still
  /// encoded) is true; `false` when the entries are malformed.
  func forEachEntry(
    where matches: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, EncodedNames) -> Bool,
    _ body: (Entry) -> Void
  ) -> Bool {
    entries.withUnsafeBytes { whole in
      let raw = UnsafeRawBufferPointer(rebasing: whole[entriesStart...])
      var reader = RawReader(raw)
      for _ in 0..<entryCount {
        guard let row: Int64 = reader.integer(), let span = reader.span(),
          let model = reader.bytes(width: 1), let id = reader.bytes(width: 1),
          let count: UInt8 = reader.integer()
        else { return false }
        let namesStart = reader.position
        for _ in 0..<count {
          guard reader.bytes(width: 2) != nil else { return false }
        }
        let names = EncodedNames(
          raw: UnsafeRawBufferPointer(rebasing: raw[namesStart..<reader.position]))
        if matches(model, id, names) {
          body(
            Entry(row: row, span: span, model: Array(model), id: Array(id), names: names.decoded))
        }
      }
      return reader.isAtEnd
    }
  }
}

/// Appends little-endian integers and length-prefixed bytes.
struct ByteWriter {
  var output: [UInt8] = []

  mutating func integer<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
  }

  mutating func bytes(_ bytes: [UInt8], width: Int) {
    if width == 1 {
      integer(UInt8(min(bytes.count, 255)))
    } else {
      integer(UInt16(min(bytes.count, 65535)))
    }
    output += bytes.prefix(width == 1 ? 255 : 65535)
  }

  mutating func span(_ span: LineSpan) {
    integer(span.offset)
    integer(UInt32(span.length))
    integer(Int64(span.line))
  }
}

/// Reads what ``ByteWriter`` writes from raw memory, without copying, never past its end.
struct RawReader {
  private let raw: UnsafeRawBufferPointer
  private(set) var position = 0

  init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

  var isAtEnd: Bool { position == raw.count }

  mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, raw.count - position >= count else { return nil }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: raw[position..<(position + count)])
  }

  mutating func integer<T: FixedWidthInteger>() -> T? {
    let size = MemoryLayout<T>.size
    guard raw.count - position >= size else { return nil }
    defer { position += size }
    return T(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: T.self))
  }

  mutating func bytes(width: Int) -> UnsafeRawBufferPointer? {
    let length: Int?
    if width == 1 {
      length = (integer() as UInt8?).map(Int.init)
    } else {
      length = (integer() as UInt16?).map(Int.init)
    }
    return length.flatMap { take($0) }
  }

  mutating func span() -> LineSpan? {
    guard let offset: Int64 = integer(), let length: UInt32 = integer(),
      let line: Int64 = integer(), offset >= 0, line >= 0, line <= Int64(Int32.max)
    else { return nil }
    return LineSpan(offset: offset, length: Int(length), line: Int(line))
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these bytes are exactly `bytes` (a `memcmp`, not a walk through two sequences:
  /// a lookup compares every entry of the index).
  func hasBytes(_ bytes: [UInt8]) -> Bool {
    count == bytes.count && hasPrefix(bytes)
  }

  /// Whether these bytes start with `bytes`.
  func hasPrefix(_ bytes: [UInt8]) -> Bool {
    guard count >= bytes.count else { return false }
    guard let base = baseAddress, !bytes.isEmpty else { return true }
    return bytes.withUnsafeBytes { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
  }
}
