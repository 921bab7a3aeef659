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
  /// How concurrent versions merge (DESIGN's rules, unless a test weakens them).
  public let rules: MergeRules

  /// A reconciler for the two stores of one device folder.
  ///
  /// - Throws: ``WiringError`` when the stores do not belong together: they must share one
  ///   lock (the folder's), and the mirror must be this device's.
  public init(
    local: LocalStore, mirror: MirrorStore, clock: @escaping @Sendable () -> Timestamp,
    rules: MergeRules = .design
  ) throws(WiringError) {
    guard local.lock === mirror.file.lock else {
      throw WiringError(
        "The local store '\(local.path)' and the mirror '\(mirror.file.path)' are opened with "
          + "separate locks; open both with the one lock of their folder")
    }
    self.local = local
    self.mirror = mirror
    self.clock = clock
    self.rules = rules
  }

  /// Runs one pass over `keys`, or over every record both stores know.
  ///
  /// - Parameter keys: The records to look at; `nil` for all of them.
  /// - Returns: What the pass did.
  /// - Throws: ``ReconcileError`` when a store cannot be read or written (both stores are
  ///   then as they were), or ``ReconcileError/wiring(_:)`` for a pass over every record of a
  ///   store opened for a few records only (it would take the records it does not hold for
  ///   absent).
  @discardableResult
  public func reconcile(keys: Set<RecordKey>? = nil) throws(ReconcileError) -> PassReport {
    let proof: FolderLock.Held
    do { proof = try local.lock.acquire() } catch { throw .lock(error) }
    defer { local.lock.release(proof) }
    do { try local.refresh() } catch { throw .local(error) }
    do { try mirror.refresh() } catch { throw .mirror(error) }
    guard keys != nil || local.content.isComplete else {
      throw .wiring(
        WiringError(
          "A pass over every record needs the local store '\(local.path)' read whole; it was "
            + "opened for a few records"))
    }
    var plan = Plan(
      local: local.content, mirror: mirror.content, keys: keys, now: clock(),
      device: local.deviceID, rules: rules)
    // Opening does not hash every row; a row whose content leaves the store is checked here.
    do {
      try local.verifyHashes(of: plan.decisions.flatMap { $0.situation.localRows })
    } catch {
      throw .local(error)
    }
    // Nor every mirror version: one that may be applied, merged (its ancestors are bases) or
    // copied into a conflict is.
    do {
      try mirror.verify(
        plan.decisions.flatMap { Plan.versionsRead(by: $0.decision, in: $0.situation) })
    } catch {
      throw .untrusted(error)
    }
    try write(&plan)
    return plan.report
  }

  /// Writes a plan: the mirror first, then the local store; the mirror is rolled back if the
  /// local write fails (and the mirror does not compact until the pass is written, so the
  /// undo never meets a rewritten file). A failed rollback is thrown, never hidden.
  func write(_ plan: inout Plan) throws(ReconcileError) {
    do {
      try mirror.file.withRollback { () throws(ReconcileError) in
        if !plan.mirrorWrites.isEmpty {
          do throws(SaveError<LogStoreError, Never>) {
            try mirror.update { _, transaction in
              transaction.write(
                plan.mirrorWrites.map { ($0.snapshot, $0.parents, $0.hash) },
                author: plan.device, at: plan.now)
            }
          } catch {
            throw .mirror(error.storeFailure)
          }
        }
        do throws(SaveError<LocalStoreError, ModelError>) {
          try local.update("the reconcile pass", origin: .reconciler) {
            _, transaction throws(ModelError) in
            try plan.applyLocal(to: &transaction)
          }
        } catch {
          throw ReconcileError(error)
        }
      }
    } catch {
      throw ReconcileError(error)
    }
  }
}

/// The decisions of one pass and the writes they need, computed from the two stores' content.
struct Plan {
  struct MirrorWrite {
    let snapshot: Snapshot
    let parents: Set<VersionID>
    /// The snapshot's hash when it is the local row's record: the row's stored hash, which
    /// ``Reconciler/reconcile(keys:)`` checks against the record before anything is written,
    /// so the mirror's write need not compute it again.
    let hash: SnapshotHash?
  }

  let now: Timestamp
  let device: DeviceID
  let mirrorID: StoreID
  /// The open conflicts of the keys examined (what the pass may supersede or settle).
  private let openConflicts: [RecordKey: [SyncConflict]]
  /// The local store's duplicate diagnostics of the keys examined.
  private let diagnostics: [RecordKey: Diagnostic]
  /// The decisions that do something (most records, most of the time, need nothing).
  private(set) var decisions: [(situation: KeySituation, decision: Decision)] = []
  /// Records whose duplicate diagnostic no longer holds.
  private var staleDiagnostics: [RecordKey] = []
  private(set) var mirrorWrites: [MirrorWrite] = []
  private(set) var report = PassReport()
  let rebind: Bool

  init(
    local: LocalContent, mirror: MirrorContent, keys: Set<RecordKey>?, now: Timestamp,
    device: DeviceID, rules: MergeRules = .design
  ) {
    // The plan keeps only what applying needs, never the whole content: a copy alive while the
    // save applies its changes would make the store copy every row (copy-on-write), and a pass
    // over one record would cost as much as a pass over all of them.
    self.now = now
    self.device = device
    self.mirrorID = mirror.storeID
    var openConflicts = [RecordKey: [SyncConflict]]()
    for conflict in local.conflicts.values where conflict.state == .open {
      openConflicts[conflict.key, default: []].append(conflict)
    }
    self.openConflicts = openConflicts
    var diagnostics = [RecordKey: Diagnostic]()
    for (id, diagnostic) in local.diagnostics where id.store == .local {
      diagnostics[id.key] = diagnostic
    }
    self.diagnostics = diagnostics
    // Checkpoints agreed with another mirror (a reset, an account change) mean nothing here:
    // start without them, so the pass re-uploads instead of treating everything as absent.
    self.rebind = local.checkpointMirror != mirror.storeID
    report.reboundCheckpoints = rebind
    let checkpoints = rebind ? [:] : local.checkpoints
    func situation(_ key: RecordKey) -> KeySituation {
      KeySituation(
        key: key, localRows: local.rows(for: key), localTombstone: local.tombstones[key],
        mirror: mirror.side(for: key), checkpoint: checkpoints[key],
        versions: mirror.versions[key] ?? [:])
    }
    let candidates: [RecordKey]
    if let keys {
      candidates = keys.sorted()
    } else {
      let (pending, agreed, deleted) = Self.keysNeedingADecision(
        local: local, mirror: mirror, checkpoints: checkpoints, openConflicts: openConflicts,
        diagnostics: diagnostics
      ) { key in
        DecisionTable.decide(situation(key), rules: rules).effects.allSatisfy {
          $0 == .settleConflicts
        }
      }
      report.examined += agreed + deleted
      if agreed > 0 { report.rows[.agree, default: 0] += agreed }
      if deleted > 0 { report.rows[.bothDeleted, default: 0] += deleted }
      candidates = pending.sorted()
    }
    for key in candidates {
      let current = situation(key)
      let decision = DecisionTable.decide(current, rules: rules)
      if !decision.effects.isEmpty { decisions.append((current, decision)) }
      if decision.row != .duplicate && diagnostics[key] != nil { staleDiagnostics.append(key) }
      report.examined += 1
      report.rows[decision.row, default: 0] += 1
      for case .copyToMirror(let snapshot, let parents) in decision.effects {
        mirrorWrites.append(
          MirrorWrite(
            snapshot: snapshot, parents: parents, hash: Self.rowHash(of: snapshot, in: current)))
        report.copiedToMirror += 1
      }
    }
  }

  /// The stored hash of the one local row when `snapshot` is its record (the snapshot a
  /// decision copies to the mirror for a local insert or edit), else `nil`.
  static func rowHash(of snapshot: Snapshot, in situation: KeySituation) -> SnapshotHash? {
    guard situation.localRows.count == 1, case .record(let record) = snapshot,
      record == situation.localRows[0].record
    else { return nil }
    return situation.localRows[0].hash
  }

  /// The hash of a record a decision writes to the local store, when it is a leaf's of the
  /// mirror: that leaf's hash, which ``Reconciler/reconcile(keys:)`` checks (or a check of
  /// this run already did) before anything is written. The copy written keeps the receiving
  /// row's device-local fields, which the hash leaves out.
  static func leafHash(of record: Record, in situation: KeySituation) -> SnapshotHash? {
    situation.mirror.leaves.first { $0.snapshot.record == record }?.hash
  }

  /// The mirror versions a decision read: the leaves, and every version of the record when
  /// it merged leaves or found them in conflict (their ancestors are the merge's bases).
  static func versionsRead(by decision: Decision, in situation: KeySituation) -> [MirrorVersion] {
    switch decision.row {
    case .merged, .concurrentVersions, .bothEdited, .deletedHereEditedThere,
      .editedHereDeletedThere:
      Array(situation.versions.values)
    default:
      situation.mirror.leaves
    }
  }

  /// Sorts every record both stores know into those that need the table and those already
  /// settled.
  ///
  /// A record is settled when its one local row (or tombstone), every leaf of the mirror and
  /// the checkpoint all carry the same snapshot hash, and it has no open conflict and no diagnostic: the
  /// table would say row 1 (or 13) and write nothing. Recognizing that from the stored hashes
  /// alone keeps a pass over a large store that agrees cheap; in debug builds an assertion
  /// checks the table agrees for every settled record.
  ///
  /// - Parameter tableAgrees: Whether the table writes nothing for a record (checked in debug
  ///   builds only, for every record found settled).
  /// - Returns: The records that need a decision, and how many are settled as rows 1 and 13.
  static func keysNeedingADecision(
    local: LocalContent, mirror: MirrorContent, checkpoints: [RecordKey: Checkpoint],
    openConflicts: [RecordKey: [SyncConflict]], diagnostics: [RecordKey: Diagnostic],
    tableAgrees: (RecordKey) -> Bool
  ) -> (pending: Set<RecordKey>, agreed: Int, deleted: Int) {
    func isSettled(_ key: RecordKey, at hash: SnapshotHash) -> Bool {
      guard let checkpoint = checkpoints[key], checkpoint.hash == hash,
        let version = checkpoint.version,
        openConflicts.isEmpty || openConflicts[key] == nil,
        diagnostics.isEmpty || diagnostics[key] == nil
      else { return false }
      return mirror.leafSnapshot(of: key) == hash && mirror.isLeaf(version, of: key)
    }
    var pending = Set<RecordKey>()
    var agreed = 0
    var deleted = 0
    for (key, rows) in local.rowsByKey {
      if rows.count == 1, let row = local.rows[rows[0]], isSettled(key, at: row.hash) {
        assert(tableAgrees(key), "the table disagrees that \(key) is settled")
        agreed += 1
      } else {
        pending.insert(key)
      }
    }
    for (key, tombstone) in local.tombstones where local.rowsByKey[key] == nil {
      if isSettled(key, at: tombstone.hash) {
        assert(tableAgrees(key), "the table disagrees that \(key) is settled")
        deleted += 1
      } else {
        pending.insert(key)
      }
    }
    func isAbsentHere(_ key: RecordKey) -> Bool {
      local.rowsByKey[key] == nil && (local.tombstones.isEmpty || local.tombstones[key] == nil)
    }
    for key in checkpoints.keys where isAbsentHere(key) { pending.insert(key) }
    for key in mirror.keys where isAbsentHere(key) { pending.insert(key) }
    pending.formUnion(openConflicts.keys)
    pending.formUnion(diagnostics.keys)
    return (pending, agreed, deleted)
  }

  /// Turns the decisions' local effects into changes of one local transaction, and counts them.
  mutating func applyLocal(to transaction: inout LocalTransaction) throws(ModelError) {
    if rebind { transaction.bindCheckpoints(to: mirrorID) }
    var openByKey = openConflicts
    for key in staleDiagnostics { transaction.removeDiagnostic(key, store: .local) }
    for (situation, decision) in decisions {
      let key = situation.key
      let row = situation.localRows.count == 1 ? situation.localRows[0] : nil
      for effect in decision.effects {
        switch effect {
        case .setCheckpoint(let checkpoint):
          transaction.setCheckpoint(key, to: checkpoint)
        case .writeLocal(let record):
          let copy = record.copied(keepingDeviceLocalFieldsOf: row?.record)
          let hash = Self.leafHash(of: record, in: situation)
          if let row {
            try transaction.replace(row.row, with: copy, hash: hash)
          } else {
            try transaction.insert(copy, hash: hash)
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
        case .recordConflict(let kind, let sides, let fields):
          let conflict = SyncConflict(
            key: key, kind: kind, sides: sides, fields: fields, noticedAt: now)
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
        case .recordMerge(let sides, let result):
          var audit = SyncConflict(key: key, kind: .merged, sides: sides, noticedAt: now)
          audit.state = .resolved
          audit.resolution = ConflictResolution(
            choice: "merged", at: now, by: device, result: result)
          transaction.put(audit)  // once: after the merge, C and the mirror agree (row 1)
          report.merged += 1
        case .recordDuplicate(let rows):
          report.duplicates += 1
          if diagnostics[key]?.rows != rows {
            transaction.put(Diagnostic(key: key, store: .local, rows: rows, noticedAt: now))
          }
        }
      }
    }
  }
}
