import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
public import StashModel

/// One field of a record that a change set, from what to what.
public struct FieldChange: Hashable, Sendable {
  /// The field's name.
  public let field: String
  /// Its value before (`nil` where the record did not exist).
  public let before: FieldValue?
  /// Its value after (`nil` for a deletion).
  public let after: FieldValue?
}

/// One version of a record, as `stash history` shows it.
public struct HistoryEvent: Hashable, Sendable {
  /// What kind of change it was.
  public enum Kind: String, Hashable, Sendable {
    /// The first version.
    case created
    /// Fields changed.
    case edited
    /// Deleted (a tombstone).
    case deleted
    /// Concurrent stock moves added up (a version with several parents).
    case merged
    /// A conflict resolved: a person chose this version.
    case resolved
  }

  /// What kind of change it was.
  public let kind: Kind
  /// The device that made it.
  public let author: DeviceID?
  /// When (the version's authoring time; for a change not synced yet, the record's
  /// `updatedAt` or the deletion's time).
  public let at: Timestamp
  /// The fields it changed, in schema order (`updatedAt` left out).
  public let changes: [FieldChange]
  /// The snapshot's hash.
  public let hash: SnapshotHash
  /// Its version in the mirror, or `nil` for a change only in this device's store (not
  /// synced yet, or sync is off).
  public let version: VersionID?
  /// The record after the change (`nil` for a deletion).
  public let record: Record?
  /// For a change of this device that never left it as itself: `.merged` when its stock
  /// moves went out inside a merge, `.resolved` when a resolution replaced it.
  public var settledBy: Kind? = nil

  /// ``version`` as 64 hexadecimal digits.
  public var versionHex: String? { version?.hex }
}

extension DeviceFolder {
  /// Every version of a record, oldest first: the mirror's version graph (every device's
  /// versions it has seen, with their authors), then what only this device's store holds (a
  /// change not synced yet, or everything when sync is off), read from its log.
  ///
  /// - Parameters:
  ///   - text: An id, id prefix or exact name of a live record; or the id of a deleted one.
  ///   - model: The record's model.
  /// - Returns: The record's key and its events.
  /// - Throws: ``StashError`` when nothing matches, or the store file cannot be read.
  public func history(
    of text: String, model: String = "item"
  ) throws(StashError) -> (key: RecordKey, events: [HistoryEvent]) {
    let key = try historyKey(text, model: model)
    let graph = mirror.store?.content.versions[key] ?? [:]
    var events = [HistoryEvent]()
    let log = try localLog(of: key)
    // A focused store holds open conflicts only: the log has the resolved ones too.
    let conflicts =
      content?.isComplete == false
      ? log.conflicts
      : (content.map { Array($0.conflicts.values) } ?? []).filter { $0.key == key }
    // What this device's conflicts settled: each result, and the sides each one replaced.
    var resolved = Set<SnapshotHash>()
    var merged = Set<SnapshotHash>()
    var settled = [SnapshotHash: (result: SnapshotHash, kind: HistoryEvent.Kind)]()
    for conflict in conflicts {
      guard let result = conflict.resolution?.result else { continue }
      let kind: HistoryEvent.Kind = conflict.kind == .merged ? .merged : .resolved
      if kind == .merged { merged.insert(result) } else { resolved.insert(result) }
      for side in conflict.sides {
        if let hash = side.snapshot?.hash, hash != result { settled[hash] = (result, kind) }
      }
    }
    let ordered = graph.values.sorted {
      ($0.generation, $0.authoredAt, $0.id) < ($1.generation, $1.authoredAt, $1.id)
    }
    var mirrorHashes = Set<SnapshotHash>()
    for version in ordered {
      mirrorHashes.insert(version.hash)
      let parents = version.parents.compactMap { graph[$0] }
      // What the version changed, seen from its author: against the author's own parent (a
      // merge or a resolution then says what it changed on that device), else the latest.
      let own = parents.filter { $0.author == version.author }
      let main = (own.isEmpty ? parents : own).max {
        ($0.generation, $0.id) < ($1.generation, $1.id)
      }
      let kind: HistoryEvent.Kind
      if version.snapshot.isTombstone {
        kind = .deleted
      } else if resolved.contains(version.hash) {
        kind = .resolved
      } else if merged.contains(version.hash) {
        kind = .merged
      } else if version.parents.count > 1 {
        // Another device's merge or resolution: a merge is what merging its parents gives.
        let merge = DecisionTable.merge(of: version.parents, in: graph)
        kind = merge?.hash == version.hash ? .merged : .resolved
      } else {
        kind = main == nil && version.parents.isEmpty ? .created : .edited
      }
      events.append(
        HistoryEvent(
          kind: kind, author: version.author, at: version.authoredAt,
          changes: Self.changes(from: main?.snapshot.record, to: version.snapshot.record),
          hash: version.hash, version: version.id, record: version.snapshot.record))
    }
    var previous = ordered.last?.snapshot.record
    var last: SnapshotHash?
    for entry in log.entries {
      // Computed once: a version's hash is its canonical encoding and a SHA-256.
      let recordHash = entry.record?.snapshotHash
      let hash = recordHash ?? entry.tombstone?.hash
      // A save that rewrote the same version (a compaction, a copy to the mirror) is no change.
      defer { if let hash { last = hash } }
      if hash == last { continue }
      var event: HistoryEvent?
      if let record = entry.record, let recordHash, !mirrorHashes.contains(recordHash) {
        event = HistoryEvent(
          kind: previous == nil ? .created : .edited, author: deviceID,
          at: Self.updatedAt(of: record),
          changes: Self.changes(from: previous, to: record), hash: recordHash,
          version: nil, record: record)
      } else if let tombstone = entry.tombstone, !mirrorHashes.contains(tombstone.hash) {
        event = HistoryEvent(
          kind: .deleted, author: deviceID, at: tombstone.deletedAt,
          changes: Self.changes(from: previous, to: nil), hash: tombstone.hash, version: nil,
          record: nil)
      }
      if let record = entry.record { previous = record }
      guard var event else { continue }
      // A change that never left as itself: merged into a later version, or replaced by a
      // resolution. It goes just before the version that settled it.
      if let (result, kind) = settled[event.hash] {
        event.settledBy = kind
        if let index = events.firstIndex(where: { $0.hash == result }) {
          events.insert(event, at: index)
          continue
        }
      }
      events.append(event)
    }
    return (key, events)
  }

  /// The record `text` names: a live one (id, prefix or name), else a deleted one by id or id
  /// prefix (from a tombstone here or a version in the mirror).
  func historyKey(_ text: String, model: String) throws(StashError) -> RecordKey {
    if let content, let row = try? find(text, model: model, in: content) {
      return row.record.key
    }
    let lowered = text.lowercased()
    var keys = Set(content?.tombstones.keys.filter { $0.model == model } ?? [])
    if let mirror = mirror.store?.content {
      keys.formUnion(mirror.keys.filter { $0.model == model })
    }
    var matches = keys.filter {
      $0.id.rawValue == lowered || (lowered.count >= 4 && $0.id.rawValue.hasPrefix(lowered))
    }
    if matches.isEmpty, let mirror = mirror.store?.content {
      // A deleted record by a name one of its versions had (the item used up and deleted).
      matches = keys.filter { key in
        content?.row(for: key) == nil
          && (mirror.versions[key]?.values.contains { version in
            version.snapshot.record?.lookupNames.contains { $0.lowercased() == lowered } ?? false
          } ?? false)
      }
    }
    if matches.count == 1 { return matches.first! }
    if matches.count > 1 {
      throw .refused("'\(text)' matches \(matches.count) \(model)s; give more of the id")
    }
    if let content { _ = try find(text, model: model, in: content) }  // the usual message
    throw .refused("No \(model) named '\(text)'; the inventory is empty")
  }

  func localHistory(of key: RecordKey) throws(StashError) -> [LocalHistoryEntry] {
    guard let local, local.file.fileExists else { return [] }
    do {
      return try local.history(of: key, fileSystem: fileSystem)
    } catch {
      throw StashError(error)
    }
  }

  /// What the local store's log holds of `key` (empty without a store file).
  func localLog(of key: RecordKey) throws(StashError) -> LocalRecordLog {
    guard let local, local.file.fileExists else { return LocalRecordLog() }
    do {
      return try local.log(of: key, fileSystem: fileSystem)
    } catch {
      throw StashError(error)
    }
  }

  /// A record's `updatedAt` (every inventory model has one), or the epoch of 1970.
  static func updatedAt(of record: Record) -> Timestamp {
    if case .date(let time)? = record[field: "updatedAt"] { return time }
    return Timestamp(secondsSince1970: 0)!
  }

  /// The fields that differ between two versions, in schema order (`updatedAt` and
  /// device-local fields left out); every field when one side is absent.
  static func changes(from before: Record?, to after: Record?) -> [FieldChange] {
    guard let schema = (after ?? before)?.schema else { return [] }
    var found = [FieldChange]()
    for (index, field) in schema.fields.enumerated()
    where !field.isDeviceLocal && field.name != "updatedAt" {
      let old = before?.values[index]
      let new = after?.values[index]
      if (old ?? .none) != (new ?? .none) {
        found.append(FieldChange(field: field.name, before: old, after: new))
      }
    }
    return found
  }
}
