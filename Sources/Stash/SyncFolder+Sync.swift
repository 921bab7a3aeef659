import CloudFolder
import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashCrypto
public import StashModel
import Synchronization

extension SyncFolder {
  /// Runs sync once, as "the app becomes active with a network": import, reconcile (if the
  /// import opened the gate), export; or less, when the sync state proves that less is the
  /// whole sync.
  ///
  /// The whole run is one critical section: it holds the device folder's lock (reentrant in
  /// this process, `flock` across processes) from before the import until after the export,
  /// so a second sync of this folder waits for it (and gives up as busy after the lock's
  /// timeout), and the two can never pick the same segment number. Each run starts with the
  /// gate closed: only this run's finished, successful import of this mirror lets the
  /// reconciler write.
  ///
  /// Under the lock it reads the sync state once (see SyncFolder+Seal.swift) and chooses:
  /// nothing, when both stores and the shared folder are as a sync that left nothing to do
  /// left them; a pass over the records changed here since, when only local row changes were
  /// appended (``SealedChanges``); the full sync otherwise. Each choice reports what the full
  /// sync would.
  ///
  /// A run that got as far as a successful import returns a report, even when the pass or
  /// the export then failed or the export was stopped: those are in the report.
  ///
  /// - Parameter progress: Told after each segment read from the shared folder how many of
  ///   the unread ones were read (for a progress line on a terminal).
  /// - Returns: What happened.
  /// - Throws: ``StashError`` when nothing could be done: busy (another process holds the
  ///   folder), sync not set up, the mirror damaged, the shared folder unreachable, its zone
  ///   file damaged or of another account. Nothing is then written to either store.
  public func sync(
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    changeHub.beginWrite()
    defer { changeHub.endWrite() }
    let report = try sync(
      seal: SyncSeal.read(home: home, fileSystem: fileSystem), progress: progress)
    changeHub.post(.synced(report))
    return report
  }

  /// Opens the folder at `home` as cheaply as its sync state allows and syncs it once (see
  /// ``sync(progress:)``): a sync with nothing new opens neither store; a sync of local
  /// changes opens both from their indexes holding only the records changed; any other opens
  /// them whole. The folder's lock is held from the comparison to the end of the sync.
  ///
  /// - Parameters:
  ///   - home: The folder.
  ///   - schemas: The schemas it was written with.
  ///   - options: How to open it (it is never created: a missing store is refused).
  ///   - progress: As for ``sync(progress:)``.
  /// - Returns: What happened.
  /// - Throws: ``StashError`` as ``open(at:registry:options:)`` and ``sync(progress:)`` do, or
  ///   refused when the folder has no store.
  public static func sync(
    at home: String, registry schemas: SchemaRegistry, options: Options = Options(),
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    var options = options
    options.createIfMissing = false
    let lock = FolderLock(
      folder: home, timeout: options.lockTimeout, fileSystem: options.fileSystem)
    func openWhole() throws(StashError) -> SyncFolder {
      let folder = try open(at: home, registry: schemas, options: options, lock: lock)
      guard folder.local != nil else {
        throw StashError(
          .refused, "Sync is off: '\(home)' has no store yet; turn it on with a shared folder",
          hint: .enableSync)
      }
      return folder
    }
    // Without a sync state there is nothing to compare, and nothing (not even the lock) is
    // created before the folder opens.
    guard let seal = SyncSeal.read(home: home, fileSystem: options.fileSystem) else {
      return try openWhole().sync(progress: progress)
    }
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    if let match = seal.match(home: home, fileSystem: options.fileSystem) {
      return skip(
        home: home, now: options.clock(), fileSystem: options.fileSystem,
        stampingAgain: seal.stampedAgain(after: match))
    }
    if let changes = sealedChanges(
      home: home, schemas: schemas, seal: seal, fileSystem: options.fileSystem)
    {
      // Opened for the records changed here; once more for those the new segments name when
      // the import needs them (it wrote nothing the first time).
      var keys = changes.keys
      for _ in 0..<2 {
        var focused = options
        focused.syncKeys = keys
        let folder = try open(at: home, registry: schemas, options: focused, lock: lock)
        var needing = Set<RecordKey>()
        if let report = try folder.syncSealedChanges(
          seal: seal, changes: changes, needing: &needing, progress: progress)
        {
          return report
        }
        guard !needing.isEmpty, !needing.isSubset(of: keys) else { break }
        keys.formUnion(needing)
        // Each record opened from the indexes costs a few random reads: for this many, reading
        // both stores whole is as cheap (a bound chosen, not a measured crossover).
        guard keys.count <= Self.mostRecordsFocused else { break }
      }
    }
    return try openWhole().sync(seal: nil, progress: progress)
  }

  /// The most records a sync of sealed changes opens the stores for; past it the full sync
  /// runs.
  static let mostRecordsFocused = 10_000

  /// The sync under the folder's lock, from the sync state `seal` read at its start (`nil`:
  /// none, or one that no longer holds): nothing, a pass over the sealed changes, or the full
  /// sync, in the coordinator of `session` when a ``SyncSession`` runs it.
  func sync(
    seal: SyncSeal?, session: SyncSession? = nil,
    progress: (_ read: Int, _ total: Int) -> Void
  ) throws(StashError) -> SyncRunReport {
    // A session's gate opens only with an import it ran, and what it has pending must run.
    let sessionWaits = session.map { !$0.isGateOpen || $0.coordinator.pending != nil } ?? false
    if let seal, !sessionWaits, let match = seal.match(home: home, fileSystem: fileSystem) {
      return Self.skip(
        home: home, now: clock(), fileSystem: fileSystem,
        stampingAgain: seal.stampedAgain(after: match))
    }
    var needing = Set<RecordKey>()
    if let seal, local != nil,
      let report = try syncSealedChanges(
        seal: seal, session: session, needing: &needing, progress: progress)
    {
      return report
    }
    guard options.syncKeys == nil else {
      throw .refused(
        "This folder was opened for a sync of sealed changes (it holds only those records); "
          + "open it without them for a full sync")
    }
    let (mirror, cloud) = try syncParts(writing: true)
    let (coordinator, passes) = try syncRunners(mirror, session: session, keys: nil)
    let report = try run(
      mirror: mirror, cloud: cloud, coordinator: coordinator, passes: passes, progress: progress)
    return report
  }

  /// The full sync whatever the sync state says (the simulation compares it with the sync
  /// the state chose).
  func syncFully() throws(StashError) -> SyncRunReport {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    return try sync(seal: nil, progress: { _, _ in })
  }

  /// The coordinator and pass reports a run uses: the session's (passes restricted to `keys`
  /// for this run), or new ones.
  func syncRunners(
    _ mirror: MirrorStore, session: SyncSession?, keys: Set<RecordKey>?
  ) throws(StashError) -> (SyncCoordinator, PassReports) {
    if let session {
      guard session.mirror === mirror else {
        throw .refused("The mirror was opened again since this session started; start a new one")
      }
      session.passes.restrict(to: keys)
      return (session.coordinator, session.passes)
    }
    let reconciler = try makeReconciler(mirror)
    let passes = PassReports(keys: keys)
    let coordinator = SyncCoordinator(mirrorStoreID: mirror.storeID) {
      request throws(ReconcileError) in
      try passes.run(request, with: reconciler)
    }
    return (coordinator, passes)
  }

  /// The reconciler of this folder's two stores.
  func makeReconciler(_ mirror: MirrorStore) throws(StashError) -> Reconciler {
    guard let local else {
      throw StashError(.refused, "This device has no store yet", hint: .initialize)
    }
    try ensureOwnIncarnation(of: local)
    do { return try Reconciler(local: local, mirror: mirror, clock: clock) } catch {
      throw .refused(error.message)
    }
  }

  /// The sync sequence (import, the coordinator's pass, export), under the folder's lock:
  /// one place for ``sync()``, a sync of sealed changes and a long-lived ``SyncSession``.
  ///
  /// Stores opened for a few records import only what concerns records both hold: when the
  /// shared folder holds more, nothing is written and the report says `stoppedBeforeImport` and which
  /// records it needs (``SyncRunReport/recordsToLoad``). A pass restricted to a few records
  /// (a sync of sealed changes) also looks at every record the import merged versions of.
  ///
  /// - Parameter previous: The seal a sync of sealed changes started from (``SealedChanges``).
  ///
  /// The local index a pass's saves write and what the folder type derives from the local
  /// store (``Options/refreshDerived``) are computed on another core while the export runs,
  /// and written before it returns (``LocalStore/deferringIndexWrites(_:)``).
  func run(
    mirror: MirrorStore, cloud: CloudFolder, coordinator: SyncCoordinator, passes: PassReports,
    progress: (Int, Int) -> Void = { _, _ in }, continuing previous: SyncSeal? = nil
  ) throws(StashError) -> SyncRunReport {
    func sequence() throws(StashError) -> SyncRunReport {
      try runSequence(
        mirror: mirror, cloud: cloud, coordinator: coordinator, passes: passes,
        progress: progress, continuing: previous)
    }
    guard let local else { return try sequence() }
    return try local.deferringIndexWrites(sequence)
  }

  private func runSequence(
    mirror: MirrorStore, cloud: CloudFolder, coordinator: SyncCoordinator, passes: PassReports,
    progress: (Int, Int) -> Void, continuing previous: SyncSeal?
  ) throws(StashError) -> SyncRunReport {
    passes.clear()
    var report = SyncRunReport()
    let post: (MirrorEvent) -> Void = { coordinator.handle($0) }
    do throws(CloudError) {
      let imported = try cloud.importNew(
        into: mirror, deviceBlobs: blobs, at: clock(),
        within: local?.content.isComplete == false ? options.syncKeys : nil, post: post,
        progress: progress)
      if imported.heldBack {
        report.stoppedBeforeImport = true
        report.recordsToLoad = imported.recordsToLoad
        return report
      }
      passes.widen(by: imported.recordsMerged)
      report.segmentsRead = imported.segmentsRead
      report.versionsImported = imported.versionsImported
      report.rejectedSegments = imported.rejected.map(\.description)
      report.waiting = imported.waiting.map(\.description)
      report.missingKeys = Array(Set(imported.missingKeys + cloud.lackingKeys.map(\.hex)))
        .sorted()
      // A zone only `zone.json` names is a standing note for status and the doctor: a sync
      // the seal skips could not report it.
      report.otherZones = imported.otherZones.filter(\.hasLiveSegments).map {
        OtherZone($0, thisZone: mirror.content.zone)
      }
    } catch {
      throw StashError(error)
    }
    report.gateOpened = coordinator.isGateOpen
    if case .failed(let error) = coordinator.flush() {
      let cause = StashError(error)
      report.passError = StashError(
        cause.category,
        "The reconcile pass failed (\(cause.message)): what the import brought is in the "
          + "mirror, but the local store was not changed; sync again", hint: .syncAgain)
    }
    if let pass = passes.last {
      report.passRan = true
      report.appliedLocally = pass.appliedLocally
      report.copiedToMirror = pass.copiedToMirror
      report.newConflicts = pass.newConflicts
      report.settledConflicts = pass.settledConflicts
      report.merged = pass.merged
      report.duplicates = pass.duplicates
    }
    // Derived from the local store as the pass left it (the export never writes it).
    let derived = options.refreshDerived?(self)
    do throws(CloudError) {
      let exported = try cloud.export(
        from: mirror, deviceBlobs: blobs, at: clock(), deviceName: settings.name, post: post)
      report.versionsExported = exported.versions
      report.exportedSegments = exported.segments
      report.photosMissing = exported.blobsMissing
      report.exportStopped = exported.stopped.map(ExportStop.init)
    } catch {
      report.exportError = StashError(error)
    }
    // A sync of sealed changes found the folder as a clean sync left it, photos included, or
    // with files added only (``SyncSeal/sharedFolderOnlyGained(home:fileSystem:)``).
    if previous == nil && report.exportError == nil {
      do throws(CloudError) {
        report.photosPublished = try publishLackingPhotos(mirror: mirror, cloud: cloud)
      } catch {
        report.exportError = StashError(error)
      }
    }
    if let failure = recordFirstTransfers(of: report, in: mirror), report.exportError == nil {
      report.exportError = failure
    }
    refreshDerivedFiles(
      after: report, mirror: mirror, cloud: cloud, continuing: previous, finishing: derived)
    return report
  }

  /// Resolves a conflict with a person's choice (see ``Reconciler/resolve(_:choice:)``).
  ///
  /// - Parameters:
  ///   - text: The conflict's id or a unique prefix of it.
  ///   - choice: What to keep.
  /// - Returns: The resolved conflict.
  /// - Throws: ``StashError`` when the conflict is unknown or not open, the choice does not fit
  ///   it, the mirror is not open, or a save fails.
  @discardableResult
  public func resolveConflict(
    _ text: String, keep choice: ResolutionChoice
  ) throws(StashError) -> SyncConflict {
    changeHub.beginWrite()
    defer { changeHub.endWrite() }
    let conflict = try self.conflict(text)
    guard let local else {
      throw StashError(.refused, "This device has no store yet", hint: .initialize)
    }
    guard let mirror = mirror.store else {
      throw StashError(
        .refused,
        "Resolving writes the choice to the mirror, which is not open on this device; "
          + "turn sync on with a shared folder and run again", hint: .enableSync)
    }
    try ensureOwnIncarnation(of: local)
    let reconciler: Reconciler
    do {
      reconciler = try Reconciler(local: local, mirror: mirror, clock: clock)
    } catch {
      throw .refused(error.message)
    }
    do { return try reconciler.resolve(conflict.id, choice: choice) } catch {
      throw StashError(error)
    }
  }
}

extension SyncFolder {
  /// Records that this run's import, and its export when it worked, finished, when the
  /// transport recorded neither (it writes nothing when there was nothing to read or send)
  /// and the mirror has no time for it yet: so that `sync status` never says "never" after a
  /// sync that worked.
  ///
  /// Only a first time is recorded. DESIGN's idempotence invariant says a sync with nothing
  /// new changes no store file, so a later run with nothing to read or send leaves the time of
  /// the last import or export that moved something.
  ///
  /// - Returns: The failure to save the time, if any: a failed write is never hidden.
  func recordFirstTransfers(of report: SyncRunReport, in mirror: MirrorStore) -> StashError? {
    let time = clock()
    let content = mirror.content
    let importRecorded = report.segmentsRead > 0 || report.versionsImported > 0
    let exportWorked = report.exportError == nil && report.exportStopped == nil
    let exportRecorded = report.versionsExported > 0
    let importDue = !importRecorded && content.lastImport == nil
    let exportDue = exportWorked && !exportRecorded && content.lastExport == nil
    guard importDue || exportDue else { return nil }
    do {
      try mirror.update { _, transaction in
        if importDue { transaction.recordTransfer(.import, at: time) }
        if exportDue { transaction.recordTransfer(.export, at: time) }
      }
      return nil
    } catch {
      return StashError(error.storeFailure)
    }
  }
}
