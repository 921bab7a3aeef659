import CloudFolder
import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashCrypto
public import StashModel
import Synchronization

/// What one `sync` run did, in plain values (the CLI reads it without the lower modules).
public struct SyncRunReport: Hashable, Sendable {
  /// Segments read whole from the shared folder.
  public var segmentsRead = 0
  /// Versions the mirror did not know before.
  public var versionsImported = 0
  /// What was not applied because it is wrong (a damaged segment or photo, an invalid
  /// version, a segment of another zone), with the reason.
  public var rejectedSegments: [String] = []
  /// What is not complete yet (a segment or photo the sync tool is still delivering): read
  /// again by the next sync.
  public var waiting: [String] = []
  /// Keys of the encrypted shared folder that this device lacks (a rotation it was not
  /// given yet), by id: what is sealed with them waits until a person enters them.
  public var missingKeys: [String] = []
  /// Whether a finished, successful import of this mirror opened the gate in this run.
  public var gateOpened = false
  /// Whether a reconcile pass ran.
  public var passRan = false
  /// Why the reconcile pass failed, if it did (the import had reached the mirror; the
  /// inventory was left as it was).
  public var passFailure: String? { passError?.message }
  /// The reconcile pass's failure, typed: a damaged store or a busy folder (the CLI exits 4
  /// or 3 for those, as every command does) or a save that failed.
  public var passError: StashError?
  /// Records written to the local store from the mirror.
  public var appliedLocally = 0
  /// Versions copied from the local store to the mirror.
  public var copiedToMirror = 0
  /// Conflicts recorded in this run.
  public var newConflicts: [ConflictID] = []
  /// Conflicts settled because their sides came to agree.
  public var settledConflicts = 0
  /// Records whose concurrent stock moves merged (added up) instead of conflicting.
  public var merged = 0
  /// Records with duplicate local rows, left alone.
  public var duplicates = 0
  /// Versions exported.
  public var versionsExported = 0
  /// The segments written, relative to the shared folder.
  public var exportedSegments: [String] = []
  /// The first segment written, if any.
  public var exportedSegment: String? { exportedSegments.first }
  /// Why this device exported nothing though it had versions to send: another copy of this
  /// device folder writes as this device (or a segment it wrote is gone). What to do is in
  /// the message.
  public var exportStopped: ExportStop?
  /// Why the export failed, if it did after the import had worked.
  public var exportFailure: String? { exportError?.message }
  /// The export's failure, typed (the versions not exported stay pending for the next sync).
  public var exportError: StashError?
  /// Photos that could not be exported (missing or damaged here).
  public var photosMissing: [String] = []
  /// Photos this device holds that the shared folder lacked (missing, renamed by a sync tool,
  /// cut short, damaged), published again by this run: their SHA-256 in hex.
  public var photosPublished: [String] = []
  /// Other zones whose segments in the shared folder hold changes this device does not have
  /// (a zone race, or another inventory's files): nothing of them was merged.
  public var otherZones: [OtherZone] = []
  /// A sync of sealed changes found something new in the shared folder and stopped before
  /// writing anything: the full sync runs instead (``SyncFolder/syncSealedChanges(progress:)``).
  var stoppedBeforeImport = false

  /// An empty report.
  public init() {}
}

extension SyncFolder {
  /// Runs sync once, as "the app becomes active with a network": import, reconcile (if the
  /// import opened the gate), export.
  ///
  /// The whole run is one critical section: it holds the device folder's lock (reentrant in
  /// this process, `flock` across processes) from before the import until after the export,
  /// so a second sync of this folder waits for it (and gives up as busy after the lock's
  /// timeout), and the two can never pick the same segment number. Each run starts with the
  /// gate closed: only this run's finished, successful import of this mirror lets the
  /// reconciler write.
  ///
  /// A run that got as far as a successful import returns a report, even when the pass or
  /// the export then failed or the export was stopped: those are in the report.
  ///
  /// - Returns: What happened.
  /// - Throws: ``StashError`` when nothing could be done: busy (another process holds the
  ///   folder), sync not set up, the mirror damaged, the shared folder unreachable, its zone
  ///   file damaged or of another account. Nothing is then written to either store.
  ///
  /// - Parameters:
  ///   - progress: Told after each segment read from the shared folder how many of the unread
  ///     ones were read (for a progress line on a terminal).
  ///   - sealing: Write the sync seal when the run leaves nothing to do, so that the next
  ///     ``syncIfUnchanged(at:lockTimeout:fileSystem:)`` can skip a sync with nothing new
  ///     (the CLI does; see SyncFolder+Seal.swift).
  public func sync(
    sealing: Bool = false, progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    try sync(sealing: sealing, progress: progress, afterPass: {})
  }

  /// ``sync(sealing:progress:)``, calling `afterPass` once the pass is done (or did not run)
  /// and before the export, which never writes the local store: what is derived from the
  /// local store can start there (``DeviceFolder/sync(sealing:progress:)`` starts the digest).
  func sync(
    sealing: Bool, progress: (_ read: Int, _ total: Int) -> Void, afterPass: () -> Void
  ) throws(StashError) -> SyncRunReport {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    guard options.sealedChanges == nil else {
      throw .refused(
        "This folder was opened for a sync of sealed changes (it holds only those records); "
          + "open it without them for a full sync")
    }
    let (mirror, cloud) = try syncParts(writing: true)
    let reconciler = try makeReconciler(mirror)
    let passes = PassReports()
    let coordinator = SyncCoordinator(mirrorStoreID: mirror.storeID) {
      request throws(ReconcileError) in
      try passes.run(request, with: reconciler)
    }
    let report = try run(
      mirror: mirror, cloud: cloud, coordinator: coordinator, passes: passes, progress: progress,
      afterPass: afterPass)
    if sealing { updateSeal(after: report, mirror: mirror, cloud: cloud) }
    return report
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
  /// - Parameter onlyIfNothingNew: Write nothing and return when the shared folder holds
  ///   anything to read, reject or wait for (a sync of sealed changes cannot pass over records
  ///   it does not hold): the report then says `stoppedBeforeImport`.
  func run(
    mirror: MirrorStore, cloud: CloudFolder, coordinator: SyncCoordinator, passes: PassReports,
    progress: (Int, Int) -> Void = { _, _ in }, onlyIfNothingNew: Bool = false,
    afterPass: () -> Void = {}
  ) throws(StashError) -> SyncRunReport {
    passes.clear()
    var report = SyncRunReport()
    let post: (MirrorEvent) -> Void = { coordinator.handle($0) }
    do throws(CloudError) {
      let imported = try cloud.importNew(
        into: mirror, deviceBlobs: blobs, at: clock(), holdingBack: onlyIfNothingNew, post: post,
        progress: progress)
      if imported.heldBack {
        report.stoppedBeforeImport = true
        return report
      }
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
    afterPass()
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
    // A sync of sealed changes found the folder as a clean sync left it, photos included.
    if !onlyIfNothingNew && report.exportError == nil {
      do throws(CloudError) {
        report.photosPublished = try publishLackingPhotos(mirror: mirror, cloud: cloud)
      } catch {
        report.exportError = StashError(error)
      }
    }
    if let failure = recordFirstTransfers(of: report, in: mirror), report.exportError == nil {
      report.exportError = failure
    }
    recordSyncTimes(of: report, in: mirror)
    // The mirror's index, brought up to date once the run's saves are done (a first sync's
    // export saves would each leave one written earlier behind), so that the next sync of
    // sealed changes opens the mirror from it. A focused or small mirror writes nothing.
    mirror.maintainIndex()
    // The local index a pass's save left building on another core (a first sync's, under
    // DeviceFolder.sync), written while this sync still holds the folder's lock.
    local?.writeDeferredIndex()
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

/// Carries pass reports out of the coordinator's closure.
final class PassReports: Sendable {
  private let reports = Mutex<[PassReport]>([])
  /// The records a full pass covers in a sync of sealed changes (every other record is
  /// settled: see ``SealedChanges``); `nil`: every record.
  private let keys: Set<RecordKey>?

  init(keys: Set<RecordKey>? = nil) { self.keys = keys }

  func add(_ report: PassReport) { reports.withLock { $0.append(report) } }

  func clear() { reports.withLock { $0 = [] } }

  /// Runs the pass `request` asks for and keeps its report.
  func run(
    _ request: SyncCoordinator.PassRequest, with reconciler: Reconciler
  ) throws(ReconcileError) {
    switch request {
    case .full: add(try reconciler.reconcile(keys: keys))
    case .keys(let requested): add(try reconciler.reconcile(keys: requested))
    }
  }

  var last: PassReport? { reports.withLock { $0.last } }
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
