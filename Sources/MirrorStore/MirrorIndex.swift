import Foundation
import JSONLines
import StashBase
import StashFiles
import StashModel

/// The index beside `cloud.store` (`cloud.store.index`): for a known prefix of the mirror's
/// file, where every `addVersion` line of each record is, sorted by record so that opening the
/// mirror focused on a few records reads a few blocks of it, and the rest of the mirror's
/// state at the end of that prefix (zone, segments read, exported and being exported, last
/// transfers, peers, pending versions, the version count) recorded by value, so that a
/// focused open never parses the huge `exported` lines.
///
/// It is derived: built from a whole content whose line positions are known, never the truth,
/// and checked every time it is used. It is a ``DerivedFile`` (a checksummed head, 4 KiB body
/// blocks with a CRC-32 each) whose source is the mirror's id and the prefix it covers; that
/// ``LogPrefix`` must still describe the mirror's file (same
/// file, same probe lines, at least as long); each version line read through it is
/// checksum-verified, decoded as on a whole open, and must be of the record the index says.
/// An index that fails any check, or of another format version, is not used: the mirror is
/// read in full (and the index is written again).
///
/// Layout (Fixtures/README.md section 8 has it byte by byte): the kind's head holds the
/// version count, the number of records, and the byte lengths of the body's parts; the body: one entry per record (model, id, its version
/// lines in file order), a table of the entries' offsets (sorted by model and id, bytewise),
/// the state changes (each a length and an operation object, as the store writes it), the
/// pending versions (model, id, version id), and the summary (``MirrorSummary``: the records
/// with concurrent versions and the photos the versions refer to).
struct MirrorIndex: Sendable {
  /// The file name's suffix after the store's.
  static let suffix = ".index"
  /// The kind: format 3, in the one derived-file container (format 2, without the summary,
  /// and format 1, with its store id and prefix in its own head, are ignored and rebuilt).
  static let kind = DerivedFile(tag: "stash.mirror.index", version: 3)
  /// The bytes of one slot of the record table.
  static let slot = 4

  /// Which mirror wrote it.
  var storeID: String
  /// The prefix of the mirror's file it covers.
  var prefix: LogPrefix
  /// How many versions the mirror holds at the end of the prefix.
  var versionCount: Int
  /// How many records (entries) there are.
  var keyCount: Int
  /// The byte length of the entries.
  var entriesLength: Int
  /// The byte length of the state changes.
  var stateLength: Int
  /// How many pending versions there are.
  var pendingCount: Int
  /// The byte length of the pending versions.
  var pendingLength: Int
  /// The byte length of the summary.
  var summaryLength: Int

  var tableStart: Int { entriesLength }
  var stateStart: Int { entriesLength + keyCount * Self.slot }
  var pendingStart: Int { stateStart + stateLength }
  var summaryStart: Int { pendingStart + pendingLength }
  var bodyLength: Int { summaryStart + summaryLength }

  /// The kind's head.
  /// How many bytes ``encodedHead()`` gives.
  static let headLength = 56

  func encodedHead() -> [UInt8] {
    var head = ByteWriter()
    head.integer(Int64(versionCount))
    head.integer(UInt64(keyCount))
    head.integer(UInt64(entriesLength))
    head.integer(UInt64(stateLength))
    head.integer(UInt64(pendingCount))
    head.integer(UInt64(pendingLength))
    head.integer(UInt64(summaryLength))
    return head.output
  }

  /// The index a derived file's `source` and kind's `head` describe, for a body of
  /// `bodyLength` bytes; `nil` when it does not fit.
  init?(source: DerivedFile.Source, head raw: [UInt8], bodyLength: Int) {
    guard case .store(let storeID, let prefix?) = source else { return nil }
    let parsed: MirrorIndex? = raw.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let count: Int64 = reader.integer(), let keys: UInt64 = reader.integer(),
        let entries: UInt64 = reader.integer(), let state: UInt64 = reader.integer(),
        let pendingCount: UInt64 = reader.integer(), let pending: UInt64 = reader.integer(),
        let summary: UInt64 = reader.integer(), reader.isAtEnd, count >= 0,
        count <= Int64(Int32.max)
      else { return nil }
      let limit = UInt64(bodyLength)
      guard keys <= limit, entries <= limit, state <= limit, pending <= limit,
        pendingCount <= limit, summary <= limit
      else { return nil }
      return MirrorIndex(
        storeID: storeID, prefix: prefix, versionCount: Int(count), keyCount: Int(keys),
        entriesLength: Int(entries), stateLength: Int(state), pendingCount: Int(pendingCount),
        pendingLength: Int(pending), summaryLength: Int(summary))
    }
    guard let parsed, parsed.bodyLength == bodyLength else { return nil }
    self = parsed
  }

  init(
    storeID: String, prefix: LogPrefix, versionCount: Int, keyCount: Int, entriesLength: Int,
    stateLength: Int, pendingCount: Int, pendingLength: Int, summaryLength: Int
  ) {
    self.storeID = storeID
    self.prefix = prefix
    self.versionCount = versionCount
    self.keyCount = keyCount
    self.entriesLength = entriesLength
    self.stateLength = stateLength
    self.pendingCount = pendingCount
    self.pendingLength = pendingLength
    self.summaryLength = summaryLength
  }

  /// Negative, zero or positive as `a` sorts before, equal to or after `b`: by model, then id,
  /// bytewise (shorter first when one starts the other).
  static func compare(_ a: (model: [UInt8], id: [UInt8]), _ b: (model: [UInt8], id: [UInt8]))
    -> Int
  {
    func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
      x.withUnsafeBytes { xs in
        y.withUnsafeBytes { ys in
          let common = min(xs.count, ys.count)
          if common > 0 {
            let order = memcmp(xs.baseAddress!, ys.baseAddress!, common)
            if order != 0 { return Int(order) }
          }
          return xs.count - ys.count
        }
      }
    }
    let models = bytes(a.model, b.model)
    return models != 0 ? models : bytes(a.id, b.id)
  }

  // MARK: Building

  /// The bytes of the index of a whole content whose lines are known, for the prefix `log`
  /// has committed; `nil` when the content does not fit the format or the prefix cannot be
  /// described.
  static func build(log: Log, content: MirrorContent) -> [UInt8]? {
    guard content.isComplete, content.linesAreKnown else { return nil }
    // Every line's key as `model 0x00 id` in one buffer (bytewise, that sorts as (model, id)
    // does: a model holds no 0x00), and the lines sorted by key, then file order.
    let lines = content.versionLines
    var keyBytes = [UInt8]()
    keyBytes.reserveCapacity(lines.count * 48)
    var keyStarts = [Int]()
    keyStarts.reserveCapacity(lines.count + 1)
    for (key, _) in lines {
      keyStarts.append(keyBytes.count)
      let model = key.model.utf8
      guard model.count <= 255 else { return nil }
      keyBytes += model
      keyBytes.append(0)
      key.id.appendText(to: &keyBytes)  // no string per line
    }
    keyStarts.append(keyBytes.count)
    // The first 16 bytes of each key as two big-endian words sort most pairs without a
    // `memcmp` (a model name, then the id's first characters).
    var sortable = [(high: UInt64, low: UInt64, line: Int)]()
    sortable.reserveCapacity(lines.count)
    keyBytes.withUnsafeBufferPointer { raw in
      for line in 0..<lines.count {
        var words: (UInt64, UInt64) = (0, 0)
        let start = keyStarts[line]
        let count = min(16, keyStarts[line + 1] - start)
        withUnsafeMutableBytes(of: &words) { out in
          for byte in 0..<count { out[byte < 8 ? 7 - byte : 23 - byte] = raw[start + byte] }
        }
        sortable.append((words.0, words.1, line))
      }
    }
    // The parts after the entries, and the prefix, first: the body is reserved once for the
    // whole file (grown by doubling, it was copied at 64 bytes a line and held twice, 6.4 and
    // 12.8 MB at 100,000 versions, at a second device's import's peak).
    let state = content.stateChanges.map {
      JSONWriter.bytes(.object(MirrorContent.operation(for: $0)))
    }
    let pending = content.pending.sorted()
    guard let summary = MirrorSummary(of: content).encoded() else { return nil }
    // Probes: lines spread through the versions, and the last operation line (a commit line
    // alone could be the same after an undo and another transaction).
    let step = max(1, content.versionLines.count / 14)
    var anchors = stride(from: 0, to: content.versionLines.count, by: step).map {
      content.versionLines[$0].span
    }
    if let last = content.lastLine { anchors.append(last) }
    guard let prefix = log.describePrefix(anchors: anchors) else { return nil }
    let source = DerivedFile.Source.store(id: log.header.storeID.rawValue, prefix: prefix)
    // At most: each line's key with its two lengths, entry count, table offset and span.
    let bodyRoom =
      keyBytes.count + lines.count * (2 + 4 + 4 + LineSpan.encodedLength)
      + state.reduce(0) { $0 + 4 + $1.count }
      + pending.reduce(0) { $0 + 2 + $1.key.model.utf8.count + RecordID.textLength + 32 }
      + summary.count
    var body = ByteWriter()
    body.output.reserveCapacity(
      bodyRoom + kind.prefixLength(bodyLength: bodyRoom, source: source, head: headLength))
    var offsets = [UInt32]()
    let fits = keyBytes.withUnsafeBufferPointer { raw -> Bool in
      let base = raw.baseAddress!
      func compare(_ a: Int, _ b: Int) -> Int {
        let aLength = keyStarts[a + 1] - keyStarts[a]
        let bLength = keyStarts[b + 1] - keyStarts[b]
        let order = memcmp(base + keyStarts[a], base + keyStarts[b], min(aLength, bLength))
        return order != 0 ? Int(order) : aLength - bLength
      }
      sortable.sort { a, b in
        if a.high != b.high { return a.high < b.high }
        if a.low != b.low { return a.low < b.low }
        let found = compare(a.line, b.line)
        return found != 0 ? found < 0 : a.line < b.line
      }
      var position = 0
      while position < sortable.count {
        let first = sortable[position].line
        var end = position + 1
        while end < sortable.count, compare(sortable[end].line, first) == 0 { end += 1 }
        guard let offset = UInt32(exactly: body.output.count) else { return false }
        offsets.append(offset)
        let key = UnsafeBufferPointer(rebasing: raw[keyStarts[first]..<keyStarts[first + 1]])
        let separator = key.firstIndex(of: 0)!
        body.integer(UInt8(separator))
        body.output += key[..<separator]
        body.integer(UInt8(key.count - separator - 1))
        body.output += key[(separator + 1)...]
        body.integer(UInt32(end - position))
        for entry in sortable[position..<end] { body.span(lines[entry.line].span) }
        position = end
      }
      return true
    }
    guard fits else { return nil }
    let keyCount = offsets.count
    let entriesLength = body.output.count
    for offset in offsets { body.integer(offset) }
    let stateStart = body.output.count
    for bytes in state {
      body.integer(UInt32(bytes.count))
      body.output += bytes
    }
    let pendingStart = body.output.count
    for ref in pending {
      let model = Array(ref.key.model.utf8)
      let id = ref.key.id.utf8Bytes
      guard model.count <= 255, id.count <= 255 else { return nil }
      body.bytes(model, width: 1)
      body.bytes(id, width: 1)
      body.output += ref.id.digest.bytes
    }
    let summaryStart = body.output.count
    body.output += summary
    let index = MirrorIndex(
      storeID: log.header.storeID.rawValue, prefix: prefix, versionCount: content.versionCount,
      keyCount: keyCount, entriesLength: entriesLength, stateLength: pendingStart - stateStart,
      pendingCount: pending.count, pendingLength: summaryStart - pendingStart,
      summaryLength: summary.count)
    let head = index.encodedHead()
    assert(head.count == headLength)
    return kind.encode(source: source, head: head, body: body.output)
  }
}

/// Reads a ``MirrorIndex`` a block at a time.
final class MirrorIndexReader {
  let index: MirrorIndex
  private let file: DerivedFileReader

  init(path: String, fileSystem: any FileSystem) throws(DerivedFile.Ignored) {
    file = try MirrorIndex.kind.read(at: path, fileSystem: fileSystem).get()
    guard
      let index = MirrorIndex(source: file.source, head: file.head, bodyLength: file.bodyLength)
    else { throw .damaged }
    self.index = index
  }

  /// The head's CRC-32: two readers with the same one read the same index.
  var headChecksum: UInt32 { file.headChecksum }

  /// The model and id of the entry at `offset`, and where its lines start.
  private func entryKey(at offset: Int) -> (model: [UInt8], id: [UInt8], next: Int)? {
    guard offset >= 0, offset < index.entriesLength,
      let modelLength: UInt8 = file.integer(at: offset),
      let model = file.bytes(at: offset + 1, count: Int(modelLength)),
      let idLength: UInt8 = file.integer(at: offset + 1 + Int(modelLength)),
      let id = file.bytes(at: offset + 2 + Int(modelLength), count: Int(idLength))
    else { return nil }
    return (model, id, offset + 2 + Int(modelLength) + Int(idLength))
  }

  /// The entry offset in slot `slot` of the record table.
  private func slotOffset(_ slot: Int) -> Int? {
    (file.integer(at: index.tableStart + slot * MirrorIndex.slot) as UInt32?).map(Int.init)
  }

  /// Where the version lines of `key` are, in file order (none when the index knows no
  /// version of it); `nil` when a block is damaged or the entries are malformed.
  func spans(of key: RecordKey) -> [LineSpan]? {
    let target = (Array(key.model.utf8), key.id.utf8Bytes)
    var low = 0
    var high = index.keyCount
    while low < high {
      let middle = low + (high - low) / 2
      guard let offset = slotOffset(middle), let found = entryKey(at: offset) else { return nil }
      if MirrorIndex.compare((found.model, found.id), target) < 0 {
        low = middle + 1
      } else {
        high = middle
      }
    }
    guard low < index.keyCount else { return [] }
    guard let offset = slotOffset(low), let found = entryKey(at: offset) else { return nil }
    guard MirrorIndex.compare((found.model, found.id), target) == 0 else { return [] }
    guard let count: UInt32 = file.integer(at: found.next),
      Int(count) <= (index.entriesLength - found.next) / 20,
      let raw = file.bytes(at: found.next + 4, count: Int(count) * 20),
      found.next + 4 + Int(count) * 20 <= index.entriesLength
    else { return nil }
    return raw.withUnsafeBytes { raw -> [LineSpan]? in
      var reader = RawReader(raw)
      var spans = [LineSpan]()
      for _ in 0..<count {
        guard let span = reader.span() else { return nil }
        spans.append(span)
      }
      return spans
    }
  }

  /// The state changes (no versions); `nil` when a block is damaged or one is malformed.
  func stateChanges(schemas: SchemaRegistry) -> [MirrorChange]? {
    guard let raw = file.bytes(at: index.stateStart, count: index.stateLength) else {
      return nil
    }
    return raw.withUnsafeBytes { raw -> [MirrorChange]? in
      var reader = RawReader(raw)
      var changes = [MirrorChange]()
      while !reader.isAtEnd {
        guard let length: UInt32 = reader.integer(), let bytes = reader.take(Int(length)),
          case .object(let object)? = try? JSONParser.parse(bytes),
          let change = try? MirrorChange(json: object, schemas: schemas)
        else { return nil }
        if case .addVersion = change { return nil }
        changes.append(change)
      }
      return changes
    }
  }

  /// The pending versions; `nil` when a block is damaged or one is malformed.
  func pending() -> CompactSet<VersionRef>? {
    guard let raw = file.bytes(at: index.pendingStart, count: index.pendingLength) else {
      return nil
    }
    return raw.withUnsafeBytes { raw -> CompactSet<VersionRef>? in
      var reader = RawReader(raw)
      var refs = CompactSet<VersionRef>()
      refs.reserveCapacity(index.pendingCount)
      for _ in 0..<index.pendingCount {
        guard let model = reader.bytes(width: 1), let id = reader.bytes(width: 1),
          let version = reader.take(32).flatMap({ SHA256Digest(bytes: $0) }),
          let recordID = RecordID(String(decoding: id, as: UTF8.self))
        else { return nil }
        let versionID = VersionID(digest: version)
        let key = RecordKey(model: String(decoding: model, as: UTF8.self), id: recordID)
        refs.insert(VersionRef(key: key, id: versionID))
      }
      return reader.isAtEnd ? refs : nil
    }
  }

  /// The summary of every version at the end of the prefix; `nil` when a block is damaged
  /// or it is malformed.
  func summary() -> MirrorSummary? {
    guard let raw = file.bytes(at: index.summaryStart, count: index.summaryLength) else {
      return nil
    }
    return raw.withUnsafeBytes { MirrorSummary(decoding: $0) }
  }
}
