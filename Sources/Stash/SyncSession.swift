import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
package import Reconciler
public import StashModel

/// The sync of one folder for as long as an app runs: one coordinator kept across
/// syncs, so that the gate, once a finished import opened it, stays open, and the person's
/// saves schedule passes over the records they changed.
///
/// ```swift
/// let session = try SyncSession(folder: folder) { DispatchQueue.main.async { session.flush() } }
/// try folder.save(meter)         // once the gate is open: a pass for this record is pending
/// session.enterBackground()      // passes wait
/// session.enterForeground()      // and run now
/// ```
/// ``SyncFolder/sync()`` is the one-shot form a command-line run uses: each call starts with a
/// closed gate. A session's ``sync()`` runs the same sequence with its long-lived coordinator.
public final class SyncSession: Sendable {
  /// The folder.
  public let folder: SyncFolder
  /// The coordinator: the gate, the pending work, the foreground rule (the engine's).
  package let coordinator: SyncCoordinator
  /// The mirror the session's coordinator passes over.
  let mirror: MirrorStore
  /// The reports of the passes the coordinator runs.
  let passes: PassReports

  /// Starts the sync of `folder` for this process, with the gate closed.
  ///
  /// - Parameters:
  ///   - folder: The folder; its mirror must be open (sync turned on before it was opened).
  ///   - passPending: Called (on the saving thread, after the save) when a save left a pass
  ///     to run and the gate is open: schedule ``flush()`` from here (an app hops to its
  ///     queue; calling it at once is allowed too).
  /// - Throws: ``StashError`` when the folder has no store or no open mirror.
  public init(
    folder: SyncFolder, passPending: (@Sendable () -> Void)? = nil
  ) throws(StashError) {
    guard let local = folder.local else {
      throw StashError(.refused, "This device has no store yet", hint: .initialize)
    }
    guard let mirror = folder.mirror.store else {
      if case .unavailable(let reason) = folder.mirror { throw StashError(.damaged, reason) }
      throw StashError(
        .refused, "Sync is off on this device; turn it on with a shared folder",
        hint: .enableSync)
    }
    let reconciler = try folder.makeReconciler(mirror)
    let passes = PassReports()
    let coordinator = SyncCoordinator(mirrorStoreID: mirror.storeID) {
      request throws(ReconcileError) in
      try passes.run(request, with: reconciler)
    }
    local.observeSaves { [weak coordinator] notice in
      guard let coordinator else { return }
      coordinator.localStoreDidSave(notice)
      if coordinator.isGateOpen, coordinator.pending != nil { passPending?() }
    }
    self.folder = folder
    self.mirror = mirror
    self.passes = passes
    self.coordinator = coordinator
  }

  /// Runs sync once with this session's coordinator: import (a finished one opens the gate
  /// for good), the pending pass, export; or less, chosen as ``SyncFolder/sync(progress:)``
  /// chooses (once the gate is open and nothing is pending).
  ///
  /// - Returns: What happened (a pass that waits for the foreground is not run).
  /// - Throws: ``StashError`` when nothing could be done.
  public func sync() throws(StashError) -> SyncRunReport {
    let proof: FolderLock.Held
    do { proof = try folder.lock.acquire() } catch { throw StashError(error) }
    defer { folder.lock.release(proof) }
    folder.changeHub.beginWrite()
    defer { folder.changeHub.endWrite() }
    let report = try folder.sync(
      seal: SyncSeal.read(home: folder.home, fileSystem: folder.fileSystem), session: self,
      progress: { _, _ in })
    folder.changeHub.post(.synced(report))
    return report
  }

  /// Runs the pending pass now, if the gate is open and the app in the foreground.
  @discardableResult
  public func flush() -> FlushOutcome { FlushOutcome(coordinator.flush()) }

  /// The app went to the background: passes wait.
  public func enterBackground() { coordinator.enterBackground() }

  /// The app came to the foreground: pending work runs now.
  @discardableResult
  public func enterForeground() -> FlushOutcome {
    FlushOutcome(coordinator.enterForeground())
  }

  /// Whether a finished, successful import of this folder's mirror has been seen.
  public var isGateOpen: Bool { coordinator.isGateOpen }
}

extension SyncSession {
  /// What a ``SyncSession/flush()`` (or ``SyncSession/enterForeground()``) did.
  public enum FlushOutcome: Hashable, Sendable {
    /// A pass ran over these records (`nil`: over every record).
    case ran(Set<RecordKey>?)
    /// Nothing was pending.
    case nothingPending
    /// The gate is closed: nothing may run before a sync finished an import.
    case gateClosed
    /// The app is in the background: pending work waits for the foreground.
    case inBackground
    /// The pass failed; the work stays pending for the next flush.
    case failed(StashError)

    init(_ outcome: SyncCoordinator.FlushOutcome) {
      switch outcome {
      case .ran(.full): self = .ran(nil)
      case .ran(.keys(let keys)): self = .ran(keys)
      case .nothingPending: self = .nothingPending
      case .gateClosed: self = .gateClosed
      case .inBackground: self = .inBackground
      case .failed(let error): self = .failed(StashError(error))
      }
    }
  }
}
