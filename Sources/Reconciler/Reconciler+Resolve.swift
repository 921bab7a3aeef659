import JSONLines
import LocalStore
import MirrorStore
import StashBase
public import StashModel

extension Reconciler {
  /// Resolves an open conflict with a person's choice.
  ///
  /// The resolution is a new version (its `updatedAt` set to now) naming every leaf of the
  /// record as a parent (this device's row is written into the graph first, as a pass does),
  /// so that other devices see it as a later edit of all of them and settle their own
  /// conflicts without new ones. Only the fields in dispute take the chosen side's values:
  /// every other field keeps its merged value, and a counter keeps every move of its epoch.
  /// A choice about the quantity itself (a recount against moves, a merge below zero) or
  /// keeping a record over a deletion starts a new epoch at the quantity shown. Choosing the
  /// deletion writes a tombstone. The checkpoint moves to the resolution, and the conflict
  /// (with any other open one on the record) is marked resolved.
  ///
  /// Only what the person saw is replaced: if the local row changed since the conflict was
  /// noticed, or a version arrived that the conflict does not hold, the resolution is refused
  /// (a pass records the new disagreement first).
  ///
  /// - Parameters:
  ///   - id: The conflict.
  ///   - choice: What to keep.
  /// - Returns: The resolved conflict.
  /// - Throws: ``ReconcileError/resolution(_:)`` when the choice does not fit the conflict;
  ///   the store's ``ReconcileError`` when a write fails (both stores are then as they were).
  @discardableResult
  public func resolve(
    _ id: ConflictID, choice: ResolutionChoice
  ) throws(ReconcileError) -> SyncConflict {
    let proof: FolderLock.Held
    do { proof = try local.lock.acquire() } catch { throw .lock(error) }
    defer { local.lock.release(proof) }
    do { try local.refresh() } catch { throw .local(error) }
    do { try mirror.refresh() } catch { throw .mirror(error) }
    let content = local.content
    guard var conflict = content.conflicts[id] else { throw .resolution(.unknown(id)) }
    guard conflict.state == .open else { throw .resolution(.notOpen(conflict)) }
    let key = conflict.key
    let rows = content.rows(for: key)
    guard rows.count <= 1 else { throw .resolution(.duplicateRows(key, rows.count)) }
    do { try local.verifyHashes(of: rows) } catch { throw .local(error) }
    let mirrored = mirror.content
    let graph = Array((mirrored.versions[key] ?? [:]).values)
    // The fold reads every version (the merge's bases).
    do { try mirror.verify(graph) } catch { throw .untrusted(error) }
    let seen = Set(conflict.sides.compactMap(\.snapshot?.hash))
    let current = rows.first?.hash ?? content.tombstones[key]?.hash
    let localSide = conflict.sides.first { $0.origin == .local }
    let checkpoint = content.checkpointMirror == mirror.storeID ? content.checkpoints[key] : nil
    let unchanged =
      localSide.map { $0.snapshot?.hash == current }
      ?? (current == nil || current == checkpoint?.hash || seen.contains(current!))
    guard unchanged else { throw .resolution(.changedSince(conflict)) }
    let side = mirrored.side(for: key)
    let chosen: Snapshot?
    do {
      chosen = try chosenSnapshot(choice, in: conflict, mirrorWinner: side.leaves.first)
    } catch {
      throw .resolution(error)
    }
    let situation = KeySituation(
      key: key, localRows: rows, localTombstone: content.tombstones[key], mirror: side,
      checkpoint: checkpoint, versions: mirrored.versions[key] ?? [:])
    let decision = GraphDecision(situation, rules: rules)
    let (leaves, _, effects) = decision.preparedLeaves()
    let leafHashes = Set(leaves.map { decision.graph.versions[$0]!.hash })
    // Every leaf must be a side the person saw: one that arrived since is decided by nobody.
    guard leafHashes.isSubset(of: seen) else { throw .resolution(.changedSince(conflict)) }
    let now = clock()
    let resolved = resolution(
      of: leaves, in: decision.graph, choosing: chosen, at: now, localRow: rows.first?.record,
      conflict: conflict)
    var writes: [(snapshot: Snapshot, parents: Set<VersionID>)] = []
    for case .copyToMirror(let snapshot, let parents, _) in effects {
      writes.append((snapshot, parents))
    }
    writes.append((resolved, leaves))
    let version = VersionID.derive(snapshot: resolved.hash, parents: leaves)

    // The mirror is rolled back if the local write fails, and does not compact meanwhile.
    do {
      try mirror.file.withRollback { () throws(ReconcileError) in
        do throws(SaveError<LogStoreError, Never>) {
          try mirror.update { _, transaction in
            transaction.write(writes, author: local.deviceID, at: now)
          }
        } catch {
          throw .mirror(error.storeFailure)
        }
        conflict.state = .resolved
        conflict.resolution = ConflictResolution(
          choice: choice.description, at: now, by: local.deviceID, result: resolved.hash)
        do throws(SaveError<LocalStoreError, ModelError>) {
          try local.update("the resolution of conflict '\(id.short)'", origin: .reconciler) {
            content, transaction throws(ModelError) in
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
            transaction.setCheckpoint(key, to: Checkpoint(resolved, version: version))
            for var other in content.openConflicts(for: key) where other.id != id {
              other.state = .resolved
              other.resolution = conflict.resolution
              transaction.put(other)
            }
            transaction.put(conflict)
          }
        } catch {
          throw ReconcileError(error)
        }
      }
    } catch {
      throw ReconcileError(error)
    }
    return conflict
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

  /// The resolution of `leaves` with `chosen`: a tombstone of what is live, for a deletion;
  /// otherwise the leaves folded with the chosen side deciding every unit in dispute, at
  /// `now`, with this device's device-local fields. A counter in dispute (or every counter,
  /// when the record is kept over a deletion) starts a new epoch at the quantity shown: the
  /// chosen side's epoch with every move made in it, or, below zero, the chosen side's own.
  private func resolution(
    of leaves: Set<VersionID>, in graph: VersionGraph, choosing chosen: Snapshot?,
    at now: Timestamp, localRow: Record?, conflict: SyncConflict
  ) -> Snapshot {
    guard case .record(let pick)? = chosen else {
      let live = leaves.lazy.compactMap { graph.versions[$0]!.snapshot.record }.first
      let deleted =
        localRow?.snapshotHash ?? live?.snapshotHash ?? chosen?.tombstone?.deletedHash
        ?? conflict.sides.lazy.compactMap(\.snapshot?.tombstone?.deletedHash).first
      return .tombstone(
        Tombstone(
          model: conflict.key.model, id: conflict.key.id, deletedAt: now,
          deletedHash: deleted ?? SnapshotHash(digest: SHA256.hash([UInt8]()))))
    }
    let schema = pick.schema
    var disagreement = Disagreement()
    var record = pick
    if !leaves.isEmpty {
      let fold = LeafFold(graph: graph, rules: rules).fold(Array(leaves), choosing: pick)
      disagreement = fold.disagreement
      if let merged = fold.snapshot?.record { record = merged }
    }
    // A side kept whole (no leaves to merge with: the mirror lost the record) is a choice of
    // its count too.
    let keptWhole = leaves.isEmpty
    if let index = schema.changeTimeIndex {
      try? record.set(schema.fields[index].name, to: .date(now))
    }
    for (position, unit) in schema.mergeUnits.enumerated() where unit.isCounter {
      let field = unit.fields[0]
      let disputed = disagreement.units.contains(position)
      guard disputed || disagreement.deletion || keptWhole,
        case .counter(let picked) = pick.values[field]
      else { continue }
      var shown = picked
      if disputed && !disagreement.belowZero.contains(position) {
        // The chosen side's epoch, with every move any leaf made in it.
        let sameEpoch = leaves.compactMap { id -> Counter? in
          guard case .counter(let counter)? = graph.versions[id]!.snapshot.record?.values[field],
            counter.isSameEpoch(as: picked)
          else { return nil }
          return counter
        }
        shown = rules.combineCounters([picked] + sameEpoch)
      } else if !disputed, case .counter(let merged) = record.values[field] {
        shown = merged
      }
      guard let value = shown.value else { continue }
      let epoch = CounterEpoch.derived(from: [
        "resolution", conflict.id.rawValue, local.deviceID.rawValue,
        String(now.secondsSince1970.bitPattern), schema.fields[field].name,
      ])
      try? record.set(schema.fields[field].name, to: .counter(.recount(to: value, epoch: epoch)))
    }
    return .record(record.copied(keepingDeviceLocalFieldsOf: localRow))
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
