import JSONLines
import StashBase
import StashFiles
package import StashModel
import Synchronization

/// Where a store file stood when its content was read: the file (device and inode) and the
/// end of its committed lines. A status section is bound to it.
package struct StorePosition: Hashable, Sendable {
  package let device: UInt64
  package let inode: UInt64
  package let end: Int64
}

/// What the index says for `sync status` of a store opened from it, brought up to date with
/// the lines after its prefix: the records not sent (their state differs from their
/// checkpoint) among those the lines after the prefix left alone, the open conflicts, and the
/// digest section, read a part at a time (it holds an entry per record: it is not copied
/// whole into memory).
package struct IndexedStatus {
  /// The records whose row or tombstone differs from their checkpoint, less the touched ones.
  package var pending: Set<RecordKey>
  /// How many conflicts are open now.
  package var openConflicts: Int
  /// The digest section's length.
  package var digestLength: Int
  /// `count` bytes of the digest section at `offset`, each 4 KiB block checked; `nil` past
  /// its end or when a block fails its check. The section describes the store where the
  /// status section says (before the touched records changed).
  package var readDigest: (_ offset: Int, _ count: Int) -> [UInt8]?
}

/// The status section of the local index (Fixtures/README.md section 8), written by a sync
/// with the digest section (``LocalStore/replaceIndexedDigest(_:status:)``): where the store
/// file ended when it was last brought up to date (the file is the index's: a status section
/// whose end is before the index's prefix is not used), the records whose row or tombstone
/// differed from their checkpoint when the sync computed both sections, and the records the
/// file's lines changed since, up to that end (``stale``: a save that writes the index again
/// adds the records its lines after the old prefix touched, and moves the end to its new
/// prefix). The pending list and the digest section describe every other record at the end.
///
/// ```
/// status = u64 end  u32 count  (u8 len model  model  u8 len id  id)×count   by model, id
///          u32 count  (u8 len model  model  u8 len id  id)×count            stale, by model, id
/// ```
struct StatusSection: Equatable {
  var end: Int64
  var pending: [RecordKey]
  /// The records changed since the sections were computed (their pending state and digest
  /// entries are not the section's: they are read from the store).
  var stale: [RecordKey] = []

  /// The most stale records a save carries forward: past it the section is dropped (status
  /// then reads the store whole until a sync writes the sections again), so that status never
  /// loads more than a few thousand records through the index.
  static let maximumStale = 4096

  /// The section's bytes; `nil` when a model or id is longer than 255 bytes.
  func encoded() -> [UInt8]? {
    var writer = ByteWriter()
    writer.integer(end)
    for list in [pending, stale] {
      writer.integer(UInt32(list.count))
      for key in list {
        let model = Array(key.model.utf8)
        let id = key.id.utf8Bytes
        guard model.count <= 255, id.count <= 255 else { return nil }
        writer.bytes(model, width: 1)
        writer.bytes(id, width: 1)
      }
    }
    return writer.output
  }

  /// The section `bytes` hold; `nil` when they are not one.
  init?(decoding bytes: [UInt8]) {
    let parsed: StatusSection? = bytes.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let end: Int64 = reader.integer() else { return nil }
      var lists = [[RecordKey]]()
      for _ in 0..<2 {
        guard let count: UInt32 = reader.integer(), Int(count) <= raw.count else { return nil }
        var keys = [RecordKey]()
        keys.reserveCapacity(Int(count))
        for _ in 0..<count {
          guard let model = reader.bytes(width: 1), let id = reader.bytes(width: 1),
            let text = String(validating: id, as: UTF8.self), let recordID = RecordID(text)
          else { return nil }
          keys.append(RecordKey(model: String(decoding: model, as: UTF8.self), id: recordID))
        }
        lists.append(keys)
      }
      return reader.isAtEnd ? StatusSection(end: end, pending: lists[0], stale: lists[1]) : nil
    }
    guard let parsed else { return nil }
    self = parsed
  }

  init(end: Int64, pending: [RecordKey], stale: [RecordKey] = []) {
    self.end = end
    self.pending = pending
    self.stale = stale
  }
}

extension LocalStore {
  /// Where the store file stands now (what a content read now describes); `nil` when there
  /// is no file or it does not end with a commit.
  package func committedPosition() -> StorePosition? {
    let prefix = file.withLog { log, _ in log.describePrefix(anchors: []) } ?? nil
    return prefix.map { StorePosition(device: $0.device, inode: $0.inode, end: $0.end) }
  }

  /// The records of a whole content whose state (its first row's hash, else its tombstone's)
  /// differs from its checkpoint's hash, by model then id: what has not left this device, as
  /// far as this store knows (the checkpoints taken as bound to the mirror in use).
  package static func unsentKeys(of content: LocalContent) -> [RecordKey] {
    var keys = [RecordKey]()
    // Each key's rows are read at its place in the table, not found again by key (a hash and
    // a probe per record, at a first sync of a million records).
    for position in 0..<content.rowsByKey.count {
      let key = content.rowsByKey.keys[position]
      let first = content.rowsByKey.withValue(at: position) { $0.min() }
      if stateHash(of: key, firstRow: first, in: content) != content.checkpoints[key]?.hash {
        keys.append(key)
      }
    }
    for (key, tombstone) in content.tombstones
    where content.rowsByKey[key] == nil && tombstone.hash != content.checkpoints[key]?.hash {
      keys.append(key)
    }
    return keys.sorted()
  }

  /// A record's state as the digest takes it: its first row's hash (in row order), else its
  /// tombstone's; `nil` when it has neither.
  package static func stateHash(of key: RecordKey, in content: LocalContent) -> SnapshotHash? {
    stateHash(of: key, firstRow: content.rowsByKey[key]?.min(), in: content)
  }

  /// ``stateHash(of:in:)`` given the record's first row (in row order), if it has one.
  private static func stateHash(
    of key: RecordKey, firstRow: RowID?, in content: LocalContent
  ) -> SnapshotHash? {
    firstRow.flatMap { content.rows[$0]?.hash } ?? content.tombstones[key]?.hash
  }

  /// The records the file's lines after the index's prefix touched (a row put or removed, a
  /// tombstone, checkpoint, conflict or diagnostic), for a store opened from its index; `nil`
  /// for a whole store, when the checkpoints were bound again, or (`requiringAll`) when a
  /// change's record is not known here (a row removed that this content never held).
  package func touchedKeysSinceIndex(requiringAll: Bool) -> Set<RecordKey>? {
    Self.touchedKeys(in: content, requiringAll: requiringAll)
  }

  /// The records `sync status` opens the store again for: those the file's lines after the
  /// index's prefix touched (``touchedKeysSinceIndex(requiringAll:)``, not requiring all), and
  /// those the index's status section says changed since the sync that wrote it (its stale
  /// records, carried forward by the saves that wrote the index again); `nil` as
  /// ``touchedKeysSinceIndex(requiringAll:)``.
  package func keysForIndexedStatus() -> Set<RecordKey>? {
    guard var keys = touchedKeysSinceIndex(requiringAll: false) else { return nil }
    if let loaded = indexState.withLock({ $0.loaded }),
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.index.headChecksum == loaded.headChecksum,
      let bytes = reader.statusSection(), let section = StatusSection(decoding: bytes)
    {
      keys.formUnion(section.stale)
    }
    return keys
  }

  /// ``touchedKeysSinceIndex(requiringAll:)`` of `content`. With `priorKeys` (the records
  /// the index held in each row the content changed or never held, none for a row not live at
  /// its prefix), a row the content never held is not a record it cannot know: the records
  /// the index held there are touched too.
  static func touchedKeys(
    in content: LocalContent, requiringAll: Bool, priorKeys: [RowID: RecordKey]? = nil
  ) -> Set<RecordKey>? {
    let changes = content.keyedChangesSinceIndex
    guard !content.isComplete, !changes.checkpointsRebound else { return nil }
    var keys = Set<RecordKey>()
    for row in content.changedSinceIndex.keys {
      let prior = priorKeys?[row]
      if let prior { keys.insert(prior) }
      if let key = content.rows[row]?.record.key ?? content.removedKeysSinceIndex[row] {
        keys.insert(key)
      } else if requiringAll && prior == nil {
        return nil
      }
    }
    keys.formUnion(changes.tombstones.keys)
    keys.formUnion(changes.checkpoints.keys)
    keys.formUnion(changes.diagnostics.keys.map(\.key))
    for id in changes.conflicts.keys {
      if let key = content.conflicts[id]?.key {
        keys.insert(key)
      } else if requiringAll {
        return nil
      }
    }
    if let priorKeys {
      for row in content.unseenRows { if let key = priorKeys[row] { keys.insert(key) } }
    } else if requiringAll, !content.unseenRows.isEmpty {
      return nil
    }
    return keys
  }

  /// What the index says for `sync status` (``IndexedStatus``), for a store opened from it
  /// focused on `keys` (``Focus/init(keys:lookups:)``), which must hold every record the
  /// lines after the prefix touched; `nil` when it cannot say: the index has no status
  /// section, or one older than its prefix, or was rewritten since the open, a block fails its
  /// check, or the tail touched a record outside `keys`, or the section's stale records are
  /// not all in `keys` (``keysForIndexedStatus()``).
  package func indexedStatus(touched keys: Set<RecordKey>) -> IndexedStatus? {
    guard !content.isComplete, let loaded = indexState.withLock({ $0.loaded }),
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.index.headChecksum == loaded.headChecksum,
      let touched = touchedKeysSinceIndex(requiringAll: true), touched.isSubset(of: keys),
      let bytes = reader.statusSection(), let section = StatusSection(decoding: bytes),
      section.end >= loaded.prefix.end, reader.index.digestLength > 0,
      section.stale.allSatisfy(keys.contains)
    else { return nil }
    let content = self.content
    var conflicts = loaded.openConflicts
    for key in keys {
      let model = Array(key.model.utf8)
      guard let entries = reader.keyedEntries(model: model, id: key.id.utf8Bytes)
      else { return nil }
      conflicts -= entries.filter { $0.kind == .conflict }.count
    }
    conflicts +=
      content.conflicts.values.filter { $0.state == .open && keys.contains($0.key) }
      .count
    guard conflicts >= 0 else { return nil }
    let start = reader.index.digestStart
    return IndexedStatus(
      pending: Set(section.pending).subtracting(keys), openConflicts: conflicts,
      digestLength: reader.index.digestLength,
      readDigest: { offset, count in
        reader.bytes(at: start + offset, count: count, in: start..<reader.index.bodyLength)
      })
  }
}
