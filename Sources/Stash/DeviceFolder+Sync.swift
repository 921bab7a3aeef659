import CloudFolder
import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
public import StashModel
import Synchronization

/// What one `sync` run did, in plain values (the CLI reads it without the lower modules).
public struct SyncRunReport: Hashable, Sendable {
  /// Segments read from the shared folder.
  public var segmentsRead = 0
  /// Versions the mirror did not know before.
  public var versionsImported = 0
  /// Segments rejected (tampered, truncated, a damaged photo), with the reason.
  public var rejectedSegments: [String] = []
  /// Whether a finished, successful import of this mirror opened the gate in this run.
  public var gateOpened = false
  /// Whether a reconcile pass ran.
  public var passRan = false
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
  /// The segment written, relative to the shared folder.
  public var exportedSegment: String?
  /// Photos that could not be exported (missing or damaged here).
  public var photosMissing: [String] = []

  /// An empty report.
  public init() {}
}

/// Where sync stands on this device.
public struct SyncStatus: Sendable {
  /// The entitlement saved in the store (takes effect when the folder is next opened).
  public var savedEntitlement: Entitlement
  /// The entitlement this process opened with.
  public var entitlementInEffect: Entitlement
  /// The shared folder, if sync was set up.
  public var cloudFolder: String?
  /// The mirror's store id, or why there is no mirror.
  public var mirror: Result<StoreID, StashError>
  /// The zone the mirror belongs to (after its first import or export).
  public var zone: String?
  /// The last finished, successful import: the last run whose gate opened.
  public var lastImport: Timestamp?
  /// The last finished, successful export.
  public var lastExport: Timestamp?
  /// Versions waiting to be exported.
  public var pendingExports: Int
  /// Conflicts waiting for a decision.
  public var openConflicts: Int
}

extension DeviceFolder {
  /// Runs sync once, as "the app becomes active with a network": import, reconcile (if the
  /// import opened the gate), export.
  ///
  /// Each run starts with the gate closed: only this run's finished, successful import of
  /// this mirror lets the reconciler write.
  ///
  /// - Returns: What happened.
  /// - Throws: ``StashError`` when sync is not set up, the mirror is damaged, the shared folder
  ///   is unreachable or belongs to another account. Nothing is then written to either store.
  public func sync() throws(StashError) -> SyncRunReport {
    let (mirror, cloud) = try syncParts()
    guard let local else { throw .refused("This device has no inventory yet") }
    let reconciler = Reconciler(local: local, mirror: mirror, clock: clock)
    let passes = PassReports()
    let coordinator = SyncCoordinator(mirrorStoreID: mirror.storeID) { request in
      switch request {
      case .full: passes.add(try reconciler.reconcile())
      case .keys(let keys): passes.add(try reconciler.reconcile(keys: keys))
      }
    }
    var report = SyncRunReport()
    let post: (MirrorEvent) -> Void = { coordinator.handle($0) }
    do throws(CloudError) {
      let imported = try cloud.importNew(
        into: mirror, deviceBlobs: blobs, at: clock(), post: post)
      report.segmentsRead = imported.segmentsRead
      report.versionsImported = imported.versionsImported
      report.rejectedSegments = imported.rejected.map(\.description)
    } catch {
      throw StashError(.refused, error.description)
    }
    report.gateOpened = coordinator.isGateOpen
    if case .failed(let reason) = coordinator.flush() {
      throw StashError(.refused, "The reconcile pass failed (\(reason)); nothing was changed")
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
    do throws(CloudError) {
      let exported = try cloud.export(
        from: mirror, deviceBlobs: blobs, at: clock(), deviceName: settings.name, post: post)
      report.versionsExported = exported.versions
      report.exportedSegment = exported.segment
      report.photosMissing = exported.blobsMissing
    } catch {
      throw StashError(.refused, error.description)
    }
    return report
  }

  /// Turns sync on through `cloud` from the next run: records a verified subscription and the
  /// shared folder.
  ///
  /// - Throws: ``StashError`` when the folder does not exist or is not a folder.
  public func enableSync(cloud: String) throws(StashError) {
    let path = URL(fileURLWithPath: cloud).standardizedFileURL.path
    do {
      _ = try fileSystem.contentsOfDirectory(path)
    } catch {
      throw .refused(
        "The shared folder '\(cloud)' cannot be used (\(error.reason)); create it, or point "
          + "your sync tool at it, then run this again")
    }
    try updateSettings("the sync settings") { settings in
      settings.entitlement = .yearlySubscription
      settings.cloudFolder = path
    }
  }

  /// Turns sync off from the next run. The mirror file stays, so turning sync on again with
  /// the same folder carries on where it stopped.
  public func disableSync() throws(StashError) {
    try updateSettings("the sync settings") { settings in
      settings.entitlement = .none
      settings.cloudFolder = nil
    }
  }

  /// Where sync stands.
  public func syncStatus() -> SyncStatus {
    let settings = self.settings
    var status = SyncStatus(
      savedEntitlement: settings.entitlement, entitlementInEffect: entitlementAtOpen,
      cloudFolder: settings.cloudFolder, mirror: .failure(.refused("")), zone: nil,
      lastImport: nil, lastExport: nil, pendingExports: 0,
      openConflicts: conflicts().count)
    switch mirror {
    case .available(let store):
      let content = store.content
      status.mirror = .success(store.storeID)
      status.zone = content.zone
      status.lastImport = content.lastImport
      status.lastExport = content.lastExport
      status.pendingExports = content.pending.count
    case .notEntitled(let entitlement):
      status.mirror = .failure(
        .refused("No mirror: the entitlement in effect ('\(entitlement.rawValue)') does not sync"))
    case .unavailable(let reason):
      status.mirror = .failure(StashError(.damaged, reason))
    }
    return status
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
    guard let local else { throw .refused("This device has no inventory yet") }
    guard let mirror = mirror.store else {
      throw .refused(
        "Resolving writes the choice to the mirror, which is not open on this device; "
          + "turn sync on ('stash sync enable --cloud DIR') and run again")
    }
    do {
      return try Reconciler(local: local, mirror: mirror, clock: clock).resolve(
        conflict.id, choice: choice)
    } catch let error as ResolutionError {
      throw .refused(error.description)
    } catch {
      throw StashError(wrapping: error)
    }
  }

  /// The mirror and the shared folder, or why sync cannot run.
  private func syncParts() throws(StashError) -> (MirrorStore, CloudFolder) {
    switch mirror {
    case .notEntitled:
      if settings.entitlement.opensMirror {
        throw .refused("Sync was turned on after this run started; it works from the next run")
      }
      throw .refused("Sync is off on this device; 'stash sync enable --cloud DIR' turns it on")
    case .unavailable(let reason):
      throw StashError(.damaged, reason)
    case .available(let store):
      guard let folder = settings.cloudFolder else {
        throw .refused("No shared folder is set; 'stash sync enable --cloud DIR' sets one")
      }
      return (store, CloudFolder(root: folder, fileSystem: fileSystem))
    }
  }
}

/// Carries pass reports out of the coordinator's closure.
private final class PassReports: Sendable {
  private let reports = Mutex<[PassReport]>([])

  func add(_ report: PassReport) { reports.withLock { $0.append(report) } }

  var last: PassReport? { reports.withLock { $0.last } }
}
