import JSONLines
import LocalStore
import MirrorStore
public import StashModel

extension Reconciler {
  /// Resolves an open conflict with a person's choice.
  ///
  /// The chosen content is written as a new version (its `updatedAt` set to now) to both
  /// stores, naming as parents every version it replaces (every side of the conflict), so that
  /// other devices see it as a later edit of all of them and settle their own conflicts
  /// without new ones. The checkpoint moves to it, and the conflict (with any other open one on
  /// the record) is marked resolved.
  ///
  /// Only what the person saw is replaced: if the local row changed since the conflict was
  /// noticed, the resolution is refused (a pass records the new disagreement first); a mirror
  /// version that arrived since is not a parent, so it stays a leaf and the next pass shows it
  /// as a conflict rather than retiring it unseen.
  ///
  /// - Parameters:
  ///   - id: The conflict.
  ///   - choice: What to keep.
  /// - Returns: The resolved conflict.
  /// - Throws: ``ResolutionError`` when the choice does not fit the conflict; store errors
  ///   when a write fails (both stores are then as they were).
  @discardableResult
  public func resolve(_ id: ConflictID, choice: ResolutionChoice) throws -> SyncConflict {
    let proof = try local.lock.acquire()
    defer { local.lock.release(proof) }
    try local.refresh()
    try mirror.refresh()
    let content = local.content
    guard var conflict = content.conflicts[id] else { throw ResolutionError.unknown(id) }
    guard conflict.state == .open else { throw ResolutionError.notOpen(conflict) }
    let key = conflict.key
    let rows = content.rows(for: key)
    guard rows.count <= 1 else { throw ResolutionError.duplicateRows(key, rows.count) }
    try local.verifyHashes(of: rows)
    let mirrored = mirror.content
    let leaves = mirrored.side(for: key).leaves
    try mirror.verify(leaves)
    let seen = Set(conflict.sides.compactMap(\.snapshot?.hash))
    let current = rows.first?.hash ?? content.tombstones[key]?.hash
    let localSide = conflict.sides.first { $0.origin == .local }
    let checkpoint = content.checkpointMirror == mirror.storeID ? content.checkpoints[key] : nil
    let unchanged =
      localSide.map { $0.snapshot?.hash == current }
      ?? (current == nil || current == checkpoint?.hash || seen.contains(current!))
    guard unchanged else { throw ResolutionError.changedSince(conflict) }
    let chosen = try chosenSnapshot(choice, in: conflict, mirrorWinner: leaves.first)
    let now = clock()
    let resolved = newVersion(
      of: chosen, at: now, localRow: rows.first?.record, leaves: leaves, conflict: conflict)
    let parents = Self.versions(replacing: seen, of: key, in: mirrored)

    // The mirror is rolled back if the local write fails, and does not compact meanwhile.
    try mirror.file.withRollback {
      try mirror.update { _, transaction in
        transaction.write(resolved, parents: parents, author: local.deviceID, at: now)
      }
      conflict.state = .resolved
      conflict.resolution = ConflictResolution(
        choice: choice.description, at: now, by: local.deviceID, result: resolved.hash)
      try local.update("the resolution of conflict '\(id.short)'", origin: .reconciler) {
        content, transaction in
        if content.checkpointMirror != mirror.storeID {
          transaction.bindCheckpoints(to: mirror.storeID)
        }
        switch resolved {
        case .record(let record):
          if let row = rows.first {
            try transaction.replace(row.row, with: record)
          } else {
            try transaction.insert(record)
          }
          if content.tombstones[key] != nil { transaction.removeTombstone(key) }
        case .tombstone(let tombstone):
          if let row = rows.first { transaction.removeRow(row.row) }
          transaction.putTombstone(tombstone)
        }
        transaction.setCheckpoint(key, to: Checkpoint(resolved))
        for var other in content.openConflicts(for: key) where other.id != id {
          other.state = .resolved
          other.resolution = conflict.resolution
          transaction.put(other)
        }
        transaction.put(conflict)
      }
    }
    return conflict
  }

  /// The parents of a resolution: every version of the record that holds one of the sides
  /// the person saw (several when one snapshot was written with different parents), and a
  /// side no version holds (a local row never exported) by its snapshot hash.
  static func versions(
    replacing sides: Set<SnapshotHash>, of key: RecordKey, in mirror: MirrorContent
  ) -> Set<VersionID> {
    var parents = Set<VersionID>()
    for hash in sides {
      let holding = mirror.versions(withSnapshot: hash, of: key)
      if holding.isEmpty {
        parents.insert(VersionID(naming: hash))
      } else {
        parents.formUnion(holding.map(\.id))
      }
    }
    return parents
  }

  /// The side the choice names.
  private func chosenSnapshot(
    _ choice: ResolutionChoice, in conflict: SyncConflict, mirrorWinner: MirrorVersion?
  ) throws(ResolutionError) -> Snapshot? {
    switch choice {
    case .deleted:
      return nil
    case .local:
      guard let snapshot = conflict.sides.first(where: { $0.origin == .local })?.snapshot else {
        throw .absentSide(conflict, "local")
      }
      return snapshot
    case .mirror:
      let mirrored = conflict.sides.filter { $0.origin == .mirror }.compactMap(\.snapshot)
      if mirrored.count == 1 { return mirrored[0] }
      if mirrored.isEmpty { throw .absentSide(conflict, "mirror") }
      let hashes = mirrored.map { "'\($0.hash.short)'" }.joined(separator: ", ")
      throw .ambiguous(
        conflict, "\(mirrored.count) sides come from the mirror (\(hashes)); choose one by its hash"
      )
    case .version(let prefix):
      let matching = conflict.sides.compactMap(\.snapshot).filter { $0.hash.hex.hasPrefix(prefix) }
      let distinct = Set(matching)
      guard let only = distinct.first else { throw .noSuchVersion(conflict, prefix) }
      guard distinct.count == 1 else {
        throw .ambiguous(conflict, "'\(prefix)' matches \(distinct.count) versions; give more")
      }
      return only
    }
  }

  /// The new version: the chosen record with `updatedAt` = now and this device's device-local
  /// fields, or a tombstone of whatever is live (for "deleted" or a chosen deletion).
  private func newVersion(
    of chosen: Snapshot?, at now: Timestamp, localRow: Record?, leaves: [MirrorVersion],
    conflict: SyncConflict
  ) -> Snapshot {
    if case .record(var record)? = chosen {
      let schema = record.schema
      if let index = schema.changeTimeIndex {
        try? record.set(schema.fields[index].name, to: .date(now))
      }
      // Keeping a live side starts a new epoch of every counter, at the side's value: keeping
      // the old epoch would let a concurrent branch of a discarded side merge with the
      // resolution and silently undo the choice (DESIGN, F2 of the model).
      for index in schema.counterIndices {
        guard case .counter(let counter) = record.values[index], let value = counter.value else {
          continue
        }
        let epoch = CounterEpoch.derived(from: [
          "resolution", conflict.id.rawValue, local.deviceID.rawValue,
          String(now.secondsSince1970.bitPattern), schema.fields[index].name,
        ])
        try? record.set(schema.fields[index].name, to: .counter(.recount(to: value, epoch: epoch)))
      }
      return .record(record.copied(keepingDeviceLocalFieldsOf: localRow))
    }
    let deleted =
      localRow?.snapshotHash ?? leaves.first(where: { !$0.snapshot.isTombstone })?.hash
      ?? chosen?.tombstone?.deletedHash ?? leaves.first?.snapshot.tombstone?.deletedHash
    let key = chosen?.key ?? localRow?.key ?? leaves[0].key
    return .tombstone(
      Tombstone(
        model: key.model, id: key.id, deletedAt: now,
        deletedHash: deleted ?? SnapshotHash(digest: SHA256.hash([UInt8]()))))
  }
}

/// Why a conflict could not be resolved as asked.
public enum ResolutionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No conflict has this id.
  case unknown(ConflictID)
  /// The conflict is already resolved or superseded.
  case notOpen(SyncConflict)
  /// The chosen side has no version (the record is absent there).
  case absentSide(SyncConflict, String)
  /// The choice names more than one version.
  case ambiguous(SyncConflict, String)
  /// No side's hash starts with the given prefix.
  case noSuchVersion(SyncConflict, String)
  /// Two local rows carry the record; resolving would have to choose between them.
  case duplicateRows(RecordKey, Int)
  /// The local row changed after the conflict was noticed.
  case changedSince(SyncConflict)

  public var description: String {
    switch self {
    case .unknown(let id):
      "No conflict '\(id.short)'; list the open conflicts to see theirs"
    case .notOpen(let conflict):
      "Conflict '\(conflict.id.short)' is already \(conflict.state.rawValue); nothing to do"
    case .absentSide(let conflict, let side):
      "Conflict '\(conflict.id.short)' has no \(side) version to keep (the record is absent "
        + "there); choose another side, a version, or 'deleted'"
    case .ambiguous(let conflict, let why):
      "Cannot resolve conflict '\(conflict.id.short)': \(why)"
    case .noSuchVersion(let conflict, let prefix):
      "No side of conflict '\(conflict.id.short)' has a hash starting with '\(prefix)'; "
        + "show the conflict to see its sides"
    case .duplicateRows(let key, let rows):
      "\(rows) rows carry the id of \(key); delete the extra rows before resolving"
    case .changedSince(let conflict):
      "The record of conflict '\(conflict.id.short)' was edited here after the conflict was "
        + "noticed, so resolve it again once a sync brought the latest versions; sync again"
    }
  }
}
