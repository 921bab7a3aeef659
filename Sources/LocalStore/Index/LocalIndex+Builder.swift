import Foundation
import JSONLines
import StashFiles
import StashModel

extension LocalIndex {
  /// Collects the entries of an index being written, then encodes it. It keeps the encoded
  /// entries and their offsets only, and sorts the offsets by the keys in the encoded bytes.
  struct Builder {
    private var entries = ByteWriter()
    /// The row entries' offsets.
    private var ids = [UInt32]()
    /// The other entries' offsets.
    private var keyed = [UInt32]()
    /// How many entries were added.
    private(set) var count = 0
    /// How many of them are open conflicts.
    private var conflicts = 0

    /// A builder for about `capacity` row entries, reserving `bytes` for the whole file (its
    /// entries, tables and sections, and what ``LocalIndex/encoded(body:)`` puts before
    /// them): the entries are then never copied into a larger buffer, nor into the file's
    /// bytes (a reservation too small is grown, one copy). What is reserved and never written
    /// costs no memory the system gives the process.
    init(capacity: Int, reserving bytes: Int? = nil) {
      entries.output.reserveCapacity(bytes ?? capacity * 96)
      ids.reserveCapacity(capacity)
    }

    /// At most how many bytes an entry of `content` takes (its row or keyed entry, and its
    /// slots in the tables), for ``init(capacity:reserving:)``: an entry holds its kind, row,
    /// span, model, id (a UUID's 36 characters, or up to 255 bytes), names and fields.
    static let bytesPerEntry = 256

    /// Adds an entry; `false` when the index would pass the 4 GiB its offsets can name.
    mutating func append(_ entry: Entry) -> Bool {
      guard let offset = UInt32(exactly: entries.output.count) else { return false }
      LocalIndex.append(entry, to: &entries)
      if entry.kind == .row { ids.append(offset) } else { keyed.append(offset) }
      if entry.kind == .conflict { conflicts += 1 }
      count += 1
      return true
    }

    /// The file's bytes, with this head, the history section `history` (`nil`: none), the
    /// digest section `digest` carries forward, the status section `status` (empty: none;
    /// one carried forward must describe the file at `prefix`, ``StatusSection``) and the
    /// field table's `declaration` (``LocalIndex/declaration(of:)``); `nil` when the entries
    /// are malformed.
    mutating func encoded(
      storeID: String, prefix: LogPrefix, nextRow: Int64, liveChanges: Int64,
      settingsLine: LineSpan, bindingLine: LineSpan?, history: HistorySection?,
      status: [UInt8] = [], digest: [UInt8], declaration: UInt32
    ) -> [UInt8]? {
      unsealed(
        storeID: storeID, prefix: prefix, nextRow: nextRow, liveChanges: liveChanges,
        settingsLine: settingsLine, bindingLine: bindingLine, history: history,
        declaration: declaration, sectionRoom: status.count + digest.count
      )?.sealed(status: status, digest: digest)
    }

    /// The index as ``encoded(storeID:prefix:nextRow:liveChanges:settingsLine:bindingLine:history:status:digest:declaration:)``
    /// encodes it, before its status and digest sections, with room for `sectionRoom` bytes of
    /// them: a sync seals the index a save built with the digest section it computed
    /// meanwhile, and writes it once.
    mutating func unsealed(
      storeID: String, prefix: LogPrefix, nextRow: Int64, liveChanges: Int64,
      settingsLine: LineSpan, bindingLine: LineSpan?, history: HistorySection?,
      declaration: UInt32, sectionRoom: Int
    ) -> Unsealed? {
      // The entries' buffer becomes the body, then the file: no copy of it is made.
      var body = ByteWriter()
      swap(&body, &entries)
      typealias Slot = (offset: UInt32, number: UInt8)
      typealias Sorted = (ids: [UInt32], names: [Slot], keyed: [UInt32], fields: [Slot])
      let sorted: Sorted? = body.output.withUnsafeBytes { raw in
        // The models first (their ranks order every key), then each entry's keys, read
        // again as they are sorted: a list of every entry's keys (11 MB and two small lists
        // an entry at 100,000 rows) was held beside the sort keys at a first sync's peak.
        var models = [UnsafeRawBufferPointer]()
        models.reserveCapacity(ids.count + keyed.count)
        for offset in ids + keyed {
          guard let model = LocalIndex.model(in: raw, at: Int(offset)) else { return nil }
          models.append(model)
        }
        let ranks = ModelRanks(models)
        models = []
        var idKeys = [(key: SortKey, offset: UInt32)]()
        var nameKeys = [(key: SortKey, offset: UInt32, number: UInt8)]()
        var otherKeys = [(key: SortKey, offset: UInt32)]()
        var fieldKeys = [(key: SortKey, row: Int64, offset: UInt32, number: UInt8)]()
        idKeys.reserveCapacity(ids.count)
        nameKeys.reserveCapacity(ids.count)
        otherKeys.reserveCapacity(keyed.count)
        for offset in ids {
          guard let keys = LocalIndex.keys(in: raw, at: Int(offset)) else { return nil }
          let rank = ranks.rank(of: keys.model)
          idKeys.append((SortKey(rank: rank, key: keys.id), offset))
          for (number, name) in keys.names.enumerated() {
            nameKeys.append((SortKey(rank: rank, key: name), offset, UInt8(number)))
          }
          for (number, field) in keys.fields.enumerated() {
            fieldKeys.append((SortKey(rank: rank, key: field), keys.row, offset, UInt8(number)))
          }
        }
        for offset in keyed {
          guard let keys = LocalIndex.keys(in: raw, at: Int(offset)) else { return nil }
          otherKeys.append((SortKey(rank: ranks.rank(of: keys.model), key: keys.id), offset))
        }
        idKeys.sort { $0.key < $1.key }
        nameKeys.sort { $0.key < $1.key }
        otherKeys.sort { $0.key < $1.key }
        // By model, field and value, then row.
        fieldKeys.sort { $0.key < $1.key || (!($1.key < $0.key) && $0.row < $1.row) }
        return (
          idKeys.map(\.offset), nameKeys.map { ($0.offset, $0.number) }, otherKeys.map(\.offset),
          fieldKeys.map { ($0.offset, $0.number) }
        )
      }
      guard let sorted else { return nil }
      // The body's size is known: reserved once, it is not grown by doubling (an index of a
      // large store is tens of megabytes, built beside a sync's other work).
      let entriesLength = body.output.count
      let bodyLength =
        entriesLength + (sorted.ids.count + sorted.keyed.count) * LocalIndex.idSlot
        + sorted.names.count * LocalIndex.nameSlot + sorted.fields.count * LocalIndex.fieldSlot
        + (history.map { $0.records.count + $0.offsets.count * LocalIndex.idSlot } ?? 0)
        + sectionRoom
      body.output.reserveCapacity(
        bodyLength
          + LocalIndex.kind.prefixLength(
            bodyLength: bodyLength, source: .store(id: storeID, prefix: prefix),
            head: LocalIndex.headLength))
      for offset in sorted.ids { body.integer(offset) }
      for slot in sorted.names {
        body.integer(slot.offset)
        body.integer(slot.number)
      }
      for offset in sorted.keyed { body.integer(offset) }
      for slot in sorted.fields {
        body.integer(slot.offset)
        body.integer(slot.number)
      }
      if let history {
        body.output += history.records
        for offset in history.offsets { body.integer(offset) }
      }
      let index = LocalIndex(
        storeID: storeID, prefix: prefix, nextRow: nextRow, liveChanges: liveChanges,
        settingsLine: settingsLine, bindingLine: bindingLine, entryCount: ids.count,
        entriesLength: entriesLength, nameCount: sorted.names.count,
        keyedCount: keyed.count, digestLength: 0, fieldCount: sorted.fields.count,
        declaration: declaration, openConflicts: conflicts, statusLength: 0,
        hasHistory: history != nil, historyCount: history?.offsets.count ?? 0,
        historyLength: history?.records.count ?? 0)
      var bytes = [UInt8]()
      swap(&bytes, &body.output)
      return Unsealed(index: index, body: bytes)
    }
  }

  /// An index encoded up to its status and digest sections (``Builder/unsealed(storeID:prefix:nextRow:liveChanges:settingsLine:bindingLine:history:declaration:sectionRoom:)``).
  struct Unsealed: Sendable {
    /// The head, with no status or digest section yet.
    let index: LocalIndex
    /// The body before the sections (with room for them).
    var body: [UInt8]

    /// The file's bytes, with these sections.
    consuming func sealed(status: [UInt8], digest: [UInt8]) -> [UInt8] {
      var index = index
      index.statusLength = status.count
      index.digestLength = digest.count
      // The body's buffer becomes the file's bytes: moved out, never copied.
      var bytes = [UInt8]()
      swap(&bytes, &body)
      bytes += status
      bytes += digest
      return index.encoded(body: consume bytes)
    }
  }
}
