import JSONLines
public import LocalStore
public import MirrorStore
public import StashModel

/// Copies records between the local store and the mirror of one device folder.
///
/// A pass decides every record with ``DecisionTable`` against both stores as they are on disk
/// (it catches up first, under the folder's lock), then writes the mirror's changes as one
/// transaction and the local store's as another. If the local write fails, the mirror's
/// transaction is cut off again, so a thrown pass leaves both stores as they were.
///
/// A crash between the two writes leaves the mirror ahead: the next pass finds the copies
/// already there (row 1, agreement) and only moves the checkpoints. Writing the local store
/// first would be unsafe: a checkpoint moved past a copy that never reached the mirror would
/// make the next pass apply the mirror's older row over the local edit (row 2).
public struct Reconciler: Sendable {
  /// The inventory.
  public let local: LocalStore
  /// The mirror.
  public let mirror: MirrorStore
  /// The clock for conflict and version times.
  public let clock: @Sendable () -> Timestamp

  /// A reconciler for the two stores of one device folder (they must share one lock).
  public init(
    local: LocalStore, mirror: MirrorStore, clock: @escaping @Sendable () -> Timestamp
  ) {
    precondition(local.lock === mirror.file.lock, "both stores must share the folder's lock")
    self.local = local
    self.mirror = mirror
    self.clock = clock
  }

  /// Runs one pass over `keys`, or over every record both stores know.
  ///
  /// - Parameter keys: The records to look at; `nil` for all of them.
  /// - Returns: What the pass did.
  /// - Throws: ``LocalStoreError`` or ``LogStoreError`` when a store cannot be read or written;
  ///   both stores are then as they were.
  @discardableResult
  public func reconcile(keys: Set<RecordKey>? = nil) throws -> PassReport {
    let proof = try local.lock.acquire()
    defer { local.lock.release(proof) }
    try local.refresh()
    try mirror.refresh()
    var plan = Plan(
      local: local.content, mirror: mirror.content, keys: keys, now: clock(),
      device: local.deviceID)
    try write(&plan)
    return plan.report
  }

  /// Writes a plan: the mirror first, then the local store; the mirror is rolled back if the
  /// local write fails.
  func write(_ plan: inout Plan) throws {
    let mark = mirror.file.mark
    if !plan.mirrorWrites.isEmpty {
      try mirror.update { _, transaction in
        for write in plan.mirrorWrites {
          transaction.write(
            write.snapshot, parents: write.parents, author: plan.device, at: plan.now)
        }
      }
    }
    do {
      try local.update("the reconcile pass", origin: .reconciler) { _, transaction in
        try plan.applyLocal(to: &transaction)
      }
    } catch {
      try? mirror.file.rollBack(to: mark)
      throw error
    }
  }
}

/// The decisions of one pass and the writes they need, computed from the two stores' content.
struct Plan {
  struct MirrorWrite {
    let snapshot: Snapshot
    let parents: Set<SnapshotHash>
  }

  let now: Timestamp
  let device: DeviceID
  let local: LocalContent
  let mirrorID: StoreID
  private(set) var decisions: [(situation: KeySituation, decision: Decision)] = []
  private(set) var mirrorWrites: [MirrorWrite] = []
  private(set) var report = PassReport()
  let rebind: Bool

  init(
    local: LocalContent, mirror: MirrorContent, keys: Set<RecordKey>?, now: Timestamp,
    device: DeviceID
  ) {
    self.now = now
    self.device = device
    self.local = local
    self.mirrorID = mirror.storeID
    // Checkpoints agreed with another mirror (a reset, an account change) mean nothing here:
    // start without them, so the pass re-uploads instead of treating everything as absent.
    self.rebind = local.checkpointMirror != mirror.storeID
    report.reboundCheckpoints = rebind
    let checkpoints = rebind ? [:] : local.checkpoints
    var all = keys ?? local.keys.union(mirror.keys)
    if keys == nil { all.formUnion(local.diagnostics.keys.map(\.key)) }
    for key in all.sorted() {
      let checkpoint = checkpoints[key]
      let side = mirror.side(for: key)
      var descends = false
      if let checkpoint, let winner = side.winner, local.tombstones[key] != nil,
        local.rowsByKey[key] == nil
      {
        descends = mirror.isAncestor(checkpoint.hash, of: winner.hash, key: key)
      }
      let situation = KeySituation(
        key: key, localRows: local.rows(for: key), localTombstone: local.tombstones[key],
        mirror: side, checkpoint: checkpoint, mirrorDescendsFromCheckpoint: descends)
      let decision = DecisionTable.decide(situation)
      decisions.append((situation, decision))
      report.examined += 1
      report.rows[decision.row, default: 0] += 1
      for case .copyToMirror(let snapshot, let parents) in decision.effects {
        mirrorWrites.append(MirrorWrite(snapshot: snapshot, parents: parents))
        report.copiedToMirror += 1
      }
    }
  }

  /// Turns the decisions' local effects into changes of one local transaction, and counts them.
  mutating func applyLocal(to transaction: inout LocalTransaction) throws {
    if rebind { transaction.bindCheckpoints(to: mirrorID) }
    var openByKey = [RecordKey: [SyncConflict]]()
    for conflict in local.conflicts.values where conflict.state == .open {
      openByKey[conflict.key, default: []].append(conflict)
    }
    var duplicateKeys = Set<RecordKey>()
    for (situation, decision) in decisions {
      let key = situation.key
      let row = situation.localRows.count == 1 ? situation.localRows[0] : nil
      for effect in decision.effects {
        switch effect {
        case .setCheckpoint(let checkpoint):
          transaction.setCheckpoint(key, to: checkpoint)
        case .writeLocal(let record):
          let copy = record.copied(keepingDeviceLocalFieldsOf: row?.record)
          if let row {
            try transaction.replace(row.row, with: copy)
          } else {
            try transaction.insert(copy)
          }
          report.appliedLocally += 1
        case .removeLocalTombstone:
          transaction.removeTombstone(key)
        case .deleteLocal(let tombstone):
          transaction.putTombstone(tombstone)
          if let row { transaction.removeRow(row.row) }
          report.appliedLocally += 1
        case .putLocalTombstone(let tombstone):
          transaction.putTombstone(tombstone)
          report.appliedLocally += 1
        case .copyToMirror:
          break  // written to the mirror before this transaction
        case .recordConflict(let kind, let sides):
          let conflict = SyncConflict(key: key, kind: kind, sides: sides, noticedAt: now)
          let open = openByKey[key] ?? []
          guard !open.contains(where: { $0.id == conflict.id }) else { continue }
          for var older in open {
            older.state = .superseded
            transaction.put(older)
          }
          transaction.put(conflict)
          openByKey[key] = [conflict]
          report.newConflicts.append(conflict.id)
        case .settleConflicts:
          for var conflict in openByKey[key] ?? [] {
            conflict.state = .resolved
            conflict.resolution = ConflictResolution(
              choice: "agreed", at: now, by: device, result: nil)
            transaction.put(conflict)
            report.settledConflicts += 1
          }
          openByKey[key] = nil
        case .recordDuplicate(let rows):
          duplicateKeys.insert(key)
          report.duplicates += 1
          let id = LocalContent.DiagnosticKey(key: key, store: .local)
          if local.diagnostics[id]?.rows != rows {
            transaction.put(Diagnostic(key: key, store: .local, rows: rows, noticedAt: now))
          }
        }
      }
      let id = LocalContent.DiagnosticKey(key: key, store: .local)
      if !duplicateKeys.contains(key), local.diagnostics[id] != nil {
        transaction.removeDiagnostic(key, store: .local)
      }
    }
  }
}
