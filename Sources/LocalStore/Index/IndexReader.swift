import Foundation
import JSONLines
import StashFiles
import StashModel

/// Reads an index file a block at a time, checking each block's CRC-32 as it is read.
///
/// A lookup reads the head, then a binary search's worth of blocks (`stash show` reads 46 at
/// 100,000 rows and 62 at a million, counted with strace): never the whole file, so its time
/// and memory barely grow with the store. The file
/// stays open while the reader lives, so a rewrite of the index by another process (a new
/// file renamed over it) cannot mix two indexes in one lookup.
final class IndexReader {
  /// The index's head.
  let index: LocalIndex
  /// The file, its body read and checked a block at a time.
  private let file: DerivedFileReader

  /// Opens the index at `path` and checks its head; `nil` when it is missing, not a regular
  /// file, of another format version, or its head is damaged or does not fit the file.
  convenience init?(path: String, fileSystem: any FileSystem) {
    guard case .success(let reader) = Self.open(path: path, fileSystem: fileSystem) else {
      return nil
    }
    self.init(reader)
  }

  private init(_ reader: (DerivedFileReader, LocalIndex)) {
    file = reader.0
    index = reader.1
  }

  /// The index at `path`, or why it is ignored.
  static func open(path: String, fileSystem: any FileSystem) -> Result<
    (DerivedFileReader, LocalIndex), DerivedFile.Ignored
  > {
    LocalIndex.kind.read(at: path, fileSystem: fileSystem).flatMap { file in
      guard
        let index = LocalIndex(
          source: file.source, head: file.head, checksum: file.headChecksum,
          bodyLength: file.bodyLength)
      else { return .failure(.damaged) }
      return .success((file, index))
    }
  }

  /// `count` bytes of the body at `offset`, inside `region`; `nil` past it or when a block
  /// fails its check.
  func bytes(at offset: Int, count: Int, in region: Range<Int>) -> [UInt8]? {
    guard count >= 0, offset >= region.lowerBound, offset <= region.upperBound - count else {
      return nil
    }
    return file.bytes(at: offset, count: count)
  }

  private var entriesRegion: Range<Int> { 0..<index.entriesLength }

  private func integer<T: FixedWidthInteger>(at offset: Int, in region: Range<Int>) -> T? {
    bytes(at: offset, count: MemoryLayout<T>.size, in: region)?.withUnsafeBytes {
      T(littleEndian: $0.loadUnaligned(as: T.self))
    }
  }

  /// The entry at `offset` in the entries.
  func entry(at offset: Int) -> LocalIndex.Entry? {
    let region = entriesRegion
    let fixedLength = LocalIndex.entryFixedLength
    // Kind (1), row (8), line (offset 8, length 4, line 8), the model's length (1).
    guard let fixed = bytes(at: offset, count: fixedLength + 1, in: region),
      let (kind, row, span, modelLength) = fixed.withUnsafeBytes({
        raw -> (LocalIndex.Kind, Int64, LineSpan, Int)? in
        var reader = RawReader(raw)
        guard let kind = (reader.integer() as UInt8?).flatMap(LocalIndex.Kind.init(rawValue:)),
          let row: Int64 = reader.integer(), let span = reader.span(),
          let modelLength: UInt8 = reader.integer()
        else { return nil }
        return (kind, row, span, Int(modelLength))
      })
    else { return nil }
    var position = offset + fixedLength + 1
    guard let model = bytes(at: position, count: modelLength, in: region),
      let idLength: UInt8 = integer(at: position + modelLength, in: region)
    else { return nil }
    position += modelLength + 1
    guard let id = bytes(at: position, count: Int(idLength), in: region),
      let nameCount: UInt8 = integer(at: position + Int(idLength), in: region)
    else { return nil }
    position += Int(idLength) + 1
    /// `count` byte strings (`UInt16` length and bytes each) from `position` on.
    func list(_ count: Int) -> [[UInt8]]? {
      var found = [[UInt8]]()
      for _ in 0..<count {
        guard let length: UInt16 = integer(at: position, in: region),
          let bytes = bytes(at: position + 2, count: Int(length), in: region)
        else { return nil }
        found.append(bytes)
        position += 2 + Int(length)
      }
      return found
    }
    guard let names = list(Int(nameCount)),
      let fieldCount: UInt8 = integer(at: position, in: region)
    else { return nil }
    position += 1
    guard let fields = list(Int(fieldCount)) else { return nil }
    return LocalIndex.Entry(
      kind: kind, row: row, span: span, model: model, id: id, names: names, fields: fields)
  }

  /// The entry in slot `slot` of the id table (a row's; `nil` for another kind: damage).
  private func idSlot(_ slot: Int) -> LocalIndex.Entry? {
    let region = index.idTableStart..<index.nameTableStart
    guard let offset: UInt32 = integer(at: region.lowerBound + slot * LocalIndex.idSlot, in: region)
    else { return nil }
    return entry(at: Int(offset)).flatMap { $0.kind == .row ? $0 : nil }
  }

  /// The entry in slot `slot` of the key table (not a row's: `nil` for a row: damage).
  private func keySlot(_ slot: Int) -> LocalIndex.Entry? {
    let region = index.keyTableStart..<index.bodyLength
    guard let offset: UInt32 = integer(at: region.lowerBound + slot * LocalIndex.idSlot, in: region)
    else { return nil }
    return entry(at: Int(offset)).flatMap { $0.kind == .row ? nil : $0 }
  }

  /// The entry in slot `slot` of the name table, and the name the slot sorts by.
  private func nameSlot(_ slot: Int) -> (entry: LocalIndex.Entry, name: [UInt8])? {
    let region = index.nameTableStart..<index.keyTableStart
    let at = region.lowerBound + slot * LocalIndex.nameSlot
    guard let offset: UInt32 = integer(at: at, in: region),
      let number: UInt8 = integer(at: at + 4, in: region),
      let entry = entry(at: Int(offset)), entry.kind == .row, Int(number) < entry.names.count
    else { return nil }
    return (entry, entry.names[Int(number)])
  }

  /// The entry in slot `slot` of the field table, and the field key the slot sorts by.
  private func fieldSlot(_ slot: Int) -> (entry: LocalIndex.Entry, key: [UInt8])? {
    let region = index.fieldTableStart..<index.statusStart
    let at = region.lowerBound + slot * LocalIndex.fieldSlot
    guard let offset: UInt32 = integer(at: at, in: region),
      let number: UInt8 = integer(at: at + 4, in: region),
      let entry = entry(at: Int(offset)), entry.kind == .row, Int(number) < entry.fields.count
    else { return nil }
    return (entry, entry.fields[Int(number)])
  }

  /// The first slot in `0..<count` whose key does not sort before `target`; `nil` when a
  /// block is damaged.
  private func lowerBound(
    count: Int, _ target: (model: [UInt8], key: [UInt8]),
    key: (Int) -> (model: [UInt8], key: [UInt8])?
  ) -> Int? {
    var low = 0
    var high = count
    while low < high {
      let middle = low + (high - low) / 2
      guard let found = key(middle) else { return nil }
      if LocalIndex.precedes(found, target) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// The entries of `model` whose id starts with `prefix` (all of them: equal is a prefix);
  /// `nil` when a block is damaged.
  func entries(model: [UInt8], idPrefix prefix: [UInt8]) -> [LocalIndex.Entry]? {
    guard
      var slot = lowerBound(
        count: index.entryCount, (model, prefix), key: { self.idSlot($0).map { ($0.model, $0.id) } }
      )
    else { return nil }
    var found = [LocalIndex.Entry]()
    while slot < index.entryCount {
      guard let entry = idSlot(slot) else { return nil }
      guard entry.model == model, entry.id.starts(with: prefix) else { break }
      found.append(entry)
      slot += 1
    }
    return found
  }

  /// The entries of `model` with one name equal to `name`; `nil` when a block is damaged.
  func entries(model: [UInt8], name: [UInt8]) -> [LocalIndex.Entry]? {
    guard
      var slot = lowerBound(
        count: index.nameCount, (model, name),
        key: { self.nameSlot($0).map { ($0.entry.model, $0.name) } })
    else { return nil }
    var found = [LocalIndex.Entry]()
    while slot < index.nameCount {
      guard let (entry, key) = nameSlot(slot) else { return nil }
      guard entry.model == model, key == name else { break }
      found.append(entry)
      slot += 1
    }
    return found
  }

  /// The row entries of `model` with a field key from `low` through `high` (each a field's
  /// position and a value's sort key, ``LocalIndex/fieldKey(_:)``), in the field table's
  /// order; `nil` when a block is damaged.
  func entries(model: [UInt8], fieldFrom low: [UInt8], through high: [UInt8])
    -> [LocalIndex.Entry]?
  {
    guard
      var slot = lowerBound(
        count: index.fieldCount, (model, low),
        key: { self.fieldSlot($0).map { ($0.entry.model, $0.key) } })
    else { return nil }
    var found = [LocalIndex.Entry]()
    while slot < index.fieldCount {
      guard let (entry, key) = fieldSlot(slot) else { return nil }
      let inside = key.withUnsafeBytes { key in
        high.withUnsafeBytes { LocalIndex.compareBytes(key, $0) <= 0 }
      }
      guard entry.model == model, inside else { break }
      found.append(entry)
      slot += 1
    }
    return found
  }

  /// The tombstone, checkpoint, open conflicts and diagnostics of the record `model` and
  /// `id` (the key table's entries with exactly that key); `nil` when a block is damaged.
  func keyedEntries(model: [UInt8], id: [UInt8]) -> [LocalIndex.Entry]? {
    guard
      var slot = lowerBound(
        count: index.keyedCount, (model, id), key: { self.keySlot($0).map { ($0.model, $0.id) } })
    else { return nil }
    var found = [LocalIndex.Entry]()
    while slot < index.keyedCount {
      guard let entry = keySlot(slot) else { return nil }
      guard entry.model == model, entry.id == id else { break }
      found.append(entry)
      slot += 1
    }
    return found
  }

  /// The digest section the index carries (empty when it has none); `nil` when a block is
  /// damaged.
  func digestSection() -> [UInt8]? {
    file.bytes(at: index.digestStart, count: index.digestLength)
  }

  /// The status section the index carries (empty when it has none); `nil` when a block is
  /// damaged.
  func statusSection() -> [UInt8]? {
    file.bytes(at: index.statusStart, count: index.statusLength)
  }

  /// The body before the status and digest sections (entries and tables); `nil` when a block
  /// is damaged.
  func bodyBeforeStatus() -> [UInt8]? {
    file.bytes(at: 0, count: index.statusStart)
  }

  /// Calls `body` with every entry, in the order they were written, reading a block at a
  /// time; `false` when a block is damaged or the entries are malformed.
  func forEachEntry(_ body: (LocalIndex.Entry) -> Void) -> Bool {
    var offset = 0
    var rows = 0
    for _ in 0..<(index.entryCount + index.keyedCount) {
      guard let entry = entry(at: offset) else { return false }
      if entry.kind == .row { rows += 1 }
      body(entry)
      offset += LocalIndex.entryFixedLength + 1 + entry.model.count + 1 + entry.id.count + 2
      for bytes in entry.names + entry.fields { offset += 2 + bytes.count }
    }
    return offset == index.entriesLength && rows == index.entryCount
  }
}
