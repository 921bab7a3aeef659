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
    // Opening hashes neither every row nor every mirror version: a row whose content leaves
    // the store, and a version that may be applied, merged (its ancestors are bases) or copied
    // into a conflict, are checked as the plan reads them, before anything is written.
    let versionCheck = mirror.versionCheck()
    var plan = try Plan(
      local: local.content, mirror: mirror.content, keys: keys, now: clock(),
      device: local.deviceID, rules: rules
    ) { [local] (rows, versions) throws(ReconcileError) in
      do throws(LocalStoreError) { try local.verifyHashes(of: rows) } catch { throw .local(error) }
      do throws(UntrustedVersion) {
        try versionCheck.verify(versions)
      } catch {
        throw .untrusted(error)
      }
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
              transaction.write(plan.mirrorWrites, author: plan.device, at: plan.now)
            }
          } catch {
            throw .mirror(error.storeFailure)
          }
          plan.mirrorWritten()
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
