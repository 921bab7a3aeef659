import LocalStore
import MirrorStore
import StashBase
import StashModel

/// The decisions of one pass and the writes they need, computed from the two stores' content.
///
/// The plan is alive while both stores take its writes, when a pass holds the most memory,
/// and a first sync or a second device's import decides every record (issue 26, item 4). So
/// it keeps, per decided record, only what writing it needs: the key, the table row, the
/// local effects (in one array for the whole pass), and for a decision that writes or removes
/// the local row, that row and the hash of what it writes. The mirror's copies go straight
/// into ``mirrorWrites``, in the form the mirror's write takes. What a decision read (the
/// local rows, the mirror's leaves or versions) is checked while the plan is made, a batch at
/// a time, as it is read (`checking`), and not kept.
struct Plan {
  /// A version to write to the mirror: the snapshot, its parents, and its hash when it is the
  /// local row's record: the row's stored hash, which ``Reconciler/reconcile(keys:)`` checks
  /// against the record before anything is written, so the mirror's write need not compute it
  /// again.
  typealias MirrorWrite = (
    snapshot: Snapshot, parents: Set<VersionID>, hash: SnapshotHash?, id: VersionID?
  )

  /// A record a pass decides, and where its key is in the local rows' table
  /// (``LocalContent/rowsByKey``), so that its rows are read without finding the key again.
  struct Candidate {
    /// The record.
    let key: RecordKey
    /// The key's position in the table, or -1 when the pass did not meet it there (no row,
    /// or a key named by the caller): its rows are then found by key.
    let rowsAt: Int32

    init(key: RecordKey, rowsAt position: Int? = nil) {
      self.key = key
      self.rowsAt = position.flatMap(Int32.init(exactly:)) ?? -1
    }

    /// Every local row carrying the key, in `local` (the content the position was taken in).
    func rows(in local: LocalContent) -> [StoredRow] {
      // The key at the position is compared, so a position from another content is never
      // trusted: the rows are then found by key.
      if rowsAt >= 0, Int(rowsAt) < local.rowsByKey.count,
        local.rowsByKey.keys[Int(rowsAt)] == key
      {
        return local.rows(atKeyPosition: Int(rowsAt))
      }
      return local.rows(for: key)
    }
  }

  /// One record whose decision does something.
  struct Decided {
    /// The record, and where its local rows are.
    let candidate: Candidate
    /// The record.
    var key: RecordKey { candidate.key }
    /// The row of the table that applied.
    let row: TableRow
    /// Where its local effects end in ``Plan/localEffects`` (they start where the previous
    /// record's end).
    let effectsEnd: Int
    /// Its entry in ``Plan/localWrites``, or -1 when it neither writes nor removes a row.
    let localWrite: Int32
  }

  /// What a decision that writes or removes the local row needs beyond its effects.
  struct LocalWrite {
    /// The one live local row, if there is one.
    let row: RowID?
    /// That row's record, whose device-local fields a written copy keeps.
    let kept: Record?
    /// The hash of the record the decision writes, when it is a leaf's of the mirror: that
    /// leaf's hash, which ``Reconciler/reconcile(keys:)`` checks (or a check of this run
    /// already did) before anything is written. The copy written keeps the receiving row's
    /// device-local fields, which the hash leaves out.
    let hash: SnapshotHash?
  }

  /// How many decided records a plan checks what it read of at once, while it decides.
  static let checkBatch = 4096

  let now: Timestamp
  let device: DeviceID
  let mirrorID: StoreID
  /// The open conflicts of the keys examined (what the pass may supersede or settle).
  let openConflicts: [RecordKey: [SyncConflict]]
  /// The local store's duplicate diagnostics of the keys examined.
  let diagnostics: [RecordKey: Diagnostic]
  /// The records whose decisions do something (most records, most of the time, need nothing),
  /// in key order.
  private(set) var decided: [Decided] = []
  /// The local effects of every decided record, in order (a copy to the mirror is in
  /// ``mirrorWrites`` instead, and settling a record that has no open conflict is left out:
  /// both change nothing in the local store).
  private(set) var localEffects: [Effect] = []
  /// What the decisions that write or remove a local row need.
  private(set) var localWrites: [LocalWrite] = []
  /// Records whose duplicate diagnostic no longer holds.
  private(set) var staleDiagnostics: [RecordKey] = []
  /// The versions to write to the mirror, in order; emptied once written.
  private(set) var mirrorWrites: [MirrorWrite] = []
  var report = PassReport()
  let rebind: Bool

  /// Decides the records `keys` names, or every record that may need a decision.
  ///
  /// - Parameter check: Called with the local rows and the mirror versions the decisions
  ///   that do something read (``versionsRead(by:in:)``), every ``checkBatch`` such
  ///   decisions and once at the end, in the order decided: each once, while they are still
  ///   in the cache (reading them again after the whole plan was made cost a second lookup of
  ///   every row or version, a cache miss each at a million records). Its error ends the plan.
  init(
    local: LocalContent, mirror: MirrorContent, keys: Set<RecordKey>?, now: Timestamp,
    device: DeviceID, rules: MergeRules = .design,
    checking check: (_ rows: [StoredRow], _ versions: [MirrorVersion]) throws(ReconcileError)
      -> Void = { _, _ in }
  ) throws(ReconcileError) {
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
    let checkpoints = rebind ? CompactDictionary() : local.checkpoints
    func situation(_ candidate: Candidate) -> KeySituation {
      let key = candidate.key
      return KeySituation(
        key: key, localRows: candidate.rows(in: local), localTombstone: local.tombstones[key],
        mirror: mirror.side(for: key), checkpoint: checkpoints[key],
        versions: mirror.versions[key] ?? [:])
    }
    let candidates: [Candidate]
    if let keys {
      candidates = keys.sorted().map { Candidate(key: $0) }
    } else {
      let (pending, agreed, deleted) = Self.keysNeedingADecision(
        local: local, mirror: mirror, checkpoints: checkpoints, openConflicts: openConflicts,
        diagnostics: diagnostics
      ) { key in
        DecisionTable.decide(situation(Candidate(key: key)), rules: rules).effects.allSatisfy {
          $0 == .settleConflicts
        }
      }
      report.examined += agreed + deleted
      if agreed > 0 { report.rows[.agree, default: 0] += agreed }
      if deleted > 0 { report.rows[.bothDeleted, default: 0] += deleted }
      candidates = pending
    }
    // Records left to decide are, nearly all, records that need something.
    decided.reserveCapacity(candidates.count)
    var rowsRead = [StoredRow]()
    var versionsRead = [MirrorVersion]()
    for candidate in candidates {
      let current = situation(candidate)
      let decision = DecisionTable.decide(current, rules: rules)
      if !decision.effects.isEmpty {
        add(decision, of: current, candidate)
        rowsRead.append(contentsOf: current.localRows)
        versionsRead.append(contentsOf: Self.versionsRead(by: decision.row, in: current))
        if decided.count % Self.checkBatch == 0 {
          try check(rowsRead, versionsRead)
          rowsRead.removeAll(keepingCapacity: true)
          versionsRead.removeAll(keepingCapacity: true)
        }
      }
      if decision.row != .duplicate && diagnostics[candidate.key] != nil {
        staleDiagnostics.append(candidate.key)
      }
      report.examined += 1
      report.rows[decision.row, default: 0] += 1
    }
    if !rowsRead.isEmpty || !versionsRead.isEmpty { try check(rowsRead, versionsRead) }
    decided = decided.trimmed()
    mirrorWrites = mirrorWrites.trimmed()
    localEffects = localEffects.trimmed()
    localWrites = localWrites.trimmed()
  }

  /// Keeps what writing `decision` needs.
  private mutating func add(
    _ decision: Decision, of situation: KeySituation, _ candidate: Candidate
  ) {
    let row = situation.localRows.count == 1 ? situation.localRows[0] : nil
    // Settling changes nothing without an open conflict, unless the decision records one.
    let settles =
      openConflicts[situation.key] != nil
      || decision.effects.contains { if case .recordConflict = $0 { true } else { false } }
    var writesRow = false
    var written: (count: Int, hash: SnapshotHash?) = (0, nil)
    for effect in decision.effects {
      switch effect {
      case .copyToMirror(let snapshot, let parents, let id):
        mirrorWrites.append((snapshot, parents, Self.rowHash(of: snapshot, in: situation), id))
        report.copiedToMirror += 1
        continue
      case .settleConflicts where !settles:
        continue
      case .writeLocal(let record):
        writesRow = true
        written = (written.count + 1, Self.leafHash(of: record, in: situation))
      case .deleteLocal:
        writesRow = true
      default:
        break
      }
      localEffects.append(effect)
    }
    var localWrite: Int32 = -1
    if writesRow {
      localWrite = Int32(localWrites.count)
      // A decision writes one record at most; were there several, each would be hashed.
      localWrites.append(
        LocalWrite(
          row: row?.row, kept: row?.record,
          hash: written.count == 1 ? written.hash : nil))
    }
    decided.append(
      Decided(
        candidate: candidate, row: decision.row, effectsEnd: localEffects.count,
        localWrite: localWrite))
  }

  /// Empties ``mirrorWrites`` once the mirror holds them.
  mutating func mirrorWritten() {
    mirrorWrites = []
  }

  /// Lets the decided records go once their local effects are in a transaction.
  mutating func decisionsApplied() {
    decided = []
    localEffects = []
    localWrites = []
  }

  /// The mirror versions a decision of `row` read in `situation`: the leaves, and every
  /// version of the record when it merged leaves or found them in conflict (their ancestors
  /// are the merge's bases).
  static func versionsRead(by row: TableRow, in situation: KeySituation) -> [MirrorVersion] {
    switch row {
    case .merged, .concurrentVersions, .bothEdited, .deletedHereEditedThere,
      .editedHereDeletedThere:
      situation.versions.values
    default:
      situation.mirror.leaves
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
  /// mirror (see ``LocalWrite/hash``).
  static func leafHash(of record: Record, in situation: KeySituation) -> SnapshotHash? {
    situation.mirror.leaves.first { $0.snapshot.record == record }?.hash
  }
}

extension Array {
  /// The same elements in storage of their own size: an array grown by appending may have
  /// room for up to twice its elements, for as long as it lives.
  fileprivate func trimmed() -> [Element] {
    capacity - count > count / 8 ? withUnsafeBufferPointer { Array($0) } : self
  }
}
