import JSONLines
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
/// file ended when both were computed (the file is the index's: a status section whose end is
/// before the index's prefix is not used), and the records whose row or tombstone differed
/// from their checkpoint then.
///
/// ```
/// status = u64 end  u32 count  (u8 len model  model  u8 len id  id)×count   by model, id
/// ```
struct StatusSection: Equatable {
  var end: Int64
  var pending: [RecordKey]

  /// The section's bytes; `nil` when a model or id is longer than 255 bytes.
  func encoded() -> [UInt8]? {
    var writer = ByteWriter()
    writer.integer(end)
    writer.integer(UInt32(pending.count))
    for key in pending {
      let model = Array(key.model.utf8)
      let id = Array(key.id.rawValue.utf8)
      guard model.count <= 255, id.count <= 255 else { return nil }
      writer.bytes(model, width: 1)
      writer.bytes(id, width: 1)
    }
    return writer.output
  }

  /// The section `bytes` hold; `nil` when they are not one.
  init?(decoding bytes: [UInt8]) {
    let parsed: StatusSection? = bytes.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let end: Int64 = reader.integer(), let count: UInt32 = reader.integer(),
        Int(count) <= raw.count
      else { return nil }
      var pending = [RecordKey]()
      pending.reserveCapacity(Int(count))
      for _ in 0..<count {
        guard let model = reader.bytes(width: 1), let id = reader.bytes(width: 1),
          let text = String(validating: id, as: UTF8.self), let recordID = RecordID(text)
        else { return nil }
        pending.append(RecordKey(model: String(decoding: model, as: UTF8.self), id: recordID))
      }
      return reader.isAtEnd ? StatusSection(end: end, pending: pending) : nil
    }
    guard let parsed else { return nil }
    self = parsed
  }

  init(end: Int64, pending: [RecordKey]) {
    self.end = end
    self.pending = pending
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
    for key in content.rowsByKey.keys
    where stateHash(of: key, in: content) != content.checkpoints[key]?.hash {
      keys.append(key)
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
    if let first = content.rowsByKey[key]?.min(), let row = content.rows[first] {
      return row.hash
    }
    return content.tombstones[key]?.hash
  }

  /// The records the file's lines after the index's prefix touched (a row put or removed, a
  /// tombstone, checkpoint, conflict or diagnostic), for a store opened from its index; `nil`
  /// for a whole store, when the checkpoints were bound again, or (`requiringAll`) when a
  /// change's record is not known here (a row removed that this content never held).
  package func touchedKeysSinceIndex(requiringAll: Bool) -> Set<RecordKey>? {
    let content = self.content
    let changes = content.keyedChangesSinceIndex
    guard !content.isComplete, !changes.checkpointsRebound else { return nil }
    var keys = Set<RecordKey>()
    for row in content.changedSinceIndex.keys {
      if let key = content.rows[row]?.record.key ?? content.removedKeysSinceIndex[row] {
        keys.insert(key)
      } else if requiringAll {
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
    if requiringAll, !content.unseenRows.isEmpty { return nil }
    return keys
  }

  /// What the index says for `sync status` (``IndexedStatus``), for a store opened from it
  /// focused on `keys` (``Focus/init(keys:lookups:)``), which must hold every record the
  /// lines after the prefix touched; `nil` when it cannot say: the index has no status
  /// section, or one older than its prefix, or was rewritten since the open, a block fails its
  /// check, or the tail touched a record outside `keys`.
  package func indexedStatus(touched keys: Set<RecordKey>) -> IndexedStatus? {
    guard !content.isComplete, let loaded = indexState.withLock({ $0.loaded }),
      let reader = IndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.index.headChecksum == loaded.headChecksum,
      let touched = touchedKeysSinceIndex(requiringAll: true), touched.isSubset(of: keys),
      let bytes = reader.statusSection(), let section = StatusSection(decoding: bytes),
      section.end >= loaded.prefix.end, reader.index.digestLength > 0
    else { return nil }
    let content = self.content
    var conflicts = loaded.openConflicts
    for key in keys {
      let model = Array(key.model.utf8)
      guard let entries = reader.keyedEntries(model: model, id: Array(key.id.rawValue.utf8))
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
