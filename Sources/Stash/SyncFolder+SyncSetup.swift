import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
import StashCrypto
import StashFiles
public import StashModel
import Synchronization

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
  /// The last finished, successful import (from `sync.state`, else the mirror).
  public var lastImport: Timestamp?
  /// The last finished, successful export.
  public var lastExport: Timestamp?
  /// Versions waiting to be exported.
  public var pendingExports: Int
  /// Conflicts waiting for a decision.
  public var openConflicts: Int
  /// What in the shared folder is not complete yet (the next sync reads it again).
  public var waiting: [String] = []
  /// What the next sync would reject.
  public var rejected: [String] = []
  /// Why the next sync would not export, and what to do about it.
  public var exportStopped: ExportStop?
  /// Why the shared folder cannot be looked at now (unreachable, another account's).
  public var folderProblem: String?
  /// What is waiting, file by file: ``waiting`` as values.
  public var waitingFiles: [SharedFileNote] = []
  /// What the next sync would reject, file by file: ``rejected`` as values.
  public var rejectedFiles: [SharedFileNote] = []
  /// Other zones in the shared folder (a zone race, or another inventory's files).
  public var otherZones: [OtherZone] = []
  /// Whether the shared folder's `zone.json` is missing (renamed or lost by the sync tool):
  /// the next sync publishes it again.
  public var zoneFileMissing = false
  /// Photos this device holds that the shared folder lacks: the next sync publishes them.
  public var photosToPublish: [PhotoToPublish] = []
  /// How the shared folder is encrypted, when it is (or this device holds keys for it).
  public var encryption: EncryptionStatus?
}

/// Whether the shared folder is encrypted and with which keys, by id (never the keys).
public struct EncryptionStatus: Hashable, Sendable {
  /// The id of the key this device seals with, when it holds keys.
  public var currentKey: String?
  /// The ids of every key this device holds, oldest first.
  public var heldKeys: [String] = []
  /// The id of the key the folder's `zone.json` names, when it is encrypted.
  public var folderKey: String?
  /// Keys the folder names that this device lacks (a rotation it was not given yet).
  public var missingKeys: [String] = []
}

extension SyncFolder {
  /// Turns sync on through `cloud` from the next run: records a verified subscription and the
  /// shared folder.
  ///
  /// The folder must exist, and must not overlap this device folder: neither be it, nor lie
  /// inside it, nor contain it (which would send the private stores to other machines).
  /// Paths are compared resolved, through links and `..`.
  ///
  /// - Throws: ``StashError`` when the folder does not exist, is not a folder, or overlaps.
  public func enableSync(cloud: String) throws(StashError) {
    let path = try checkSharedFolder(cloud)
    try updateSettings("the sync settings") { settings in
      settings.entitlement = .yearlySubscription
      settings.cloudFolder = path
    }
  }

  /// Checks that `cloud` can be this device's shared folder, writing nothing: it exists, can
  /// be listed, and does not overlap this device folder. A folder opened for reading (even
  /// one with no store yet) can check, so that a refusal creates nothing.
  ///
  /// - Returns: The shared folder's absolute path, as ``enableSync(cloud:)`` records it.
  /// - Throws: ``StashError`` (refused) naming the folder and what to do.
  @discardableResult
  package func checkSharedFolder(_ cloud: String) throws(StashError) -> String {
    let path = Paths.absolute(cloud)
    if let overlap = overlap(ofSharedFolder: cloud) { throw .refused(overlap) }
    do {
      _ = try fileSystem.contentsOfDirectory(path)
    } catch {
      throw .refused(
        "The shared folder '\(cloud)' cannot be used (\(error.reason)); create it, or point "
          + "your sync tool at it, then run this again")
    }
    return path
  }

  /// Why `cloud` cannot be this device's shared folder because it overlaps the device folder.
  func overlap(ofSharedFolder cloud: String) -> String? {
    let shared = Paths.resolved(cloud)
    let device = Paths.resolved(home)
    if shared == device {
      return "The shared folder '\(cloud)' is this device folder; choose a folder outside "
        + "'\(home)' that your sync tool shares"
    }
    if Paths.isSameOrInside(shared, device) {
      return "The shared folder '\(cloud)' is inside the device folder '\(home)'; choose a "
        + "folder outside it that your sync tool shares"
    }
    if Paths.isSameOrInside(device, shared) {
      return "The shared folder '\(cloud)' contains the device folder '\(home)': syncing it "
        + "would send this device's private stores to other machines; choose a folder that "
        + "does not contain it"
    }
    return nil
  }

  /// Turns sync off from the next run. The mirror file stays, so turning sync on again with
  /// the same folder carries on where it stopped.
  public func disableSync() throws(StashError) {
    try updateSettings("the sync settings") { settings in
      settings.entitlement = .none
      settings.cloudFolder = nil
    }
  }

  /// Where sync stands, including what waits in the shared folder and whether this device
  /// would export (the folder is read, nothing is written).
  public func syncStatus() -> SyncStatus {
    let settings = self.settings
    var status = SyncStatus(
      savedEntitlement: settings.entitlement, entitlementInEffect: entitlementAtOpen,
      cloudFolder: settings.cloudFolder, mirror: .failure(.refused("")), zone: nil,
      lastImport: nil, lastExport: nil, pendingExports: 0,
      openConflicts: indexedLocalStatus.withLock { $0?.openConflicts } ?? conflicts().count)
    switch mirror {
    case .available(let store):
      let content = store.content
      status.mirror = .success(store.storeID)
      status.zone = content.zone
      (status.lastImport, status.lastExport) = lastTransfers(of: store)
      status.pendingExports = content.pending.count
      if let folder = settings.cloudFolder {
        let cloud: CloudFolder
        do {
          cloud = try cloudFolder(folder)
        } catch {
          status.folderProblem = error.message
          return status
        }
        status.encryption = encryptionStatus(cloud)
        do throws(CloudError) {
          let survey = try cloud.survey(store, deviceBlobs: blobs)
          status.waiting = survey.waiting.map(\.description)
          status.rejected = survey.rejected.map(\.description)
          status.waitingFiles = survey.waiting.map(SharedFileNote.init)
          status.rejectedFiles = survey.rejected.map(SharedFileNote.init)
          status.exportStopped = survey.ownFolder.map(ExportStop.init)
          status.otherZones = survey.otherZones.map { OtherZone($0, thisZone: content.zone) }
          status.zoneFileMissing = survey.zoneFileMissing
          status.photosToPublish = lackingPhotos(
            mirror: store, cloud: cloud, summary: mirrorSummary.withLock { $0 }
          ).map(PhotoToPublish.init)
        } catch {
          status.folderProblem = error.description
        }
      }
    case .notEntitled(let entitlement):
      status.mirror = .failure(
        .refused("No mirror: the entitlement in effect ('\(entitlement.rawValue)') does not sync"))
    case .unavailable(let reason):
      status.mirror = .failure(StashError(.damaged, reason))
    }
    return status
  }

  /// How `cloud` is encrypted, as status shows it; `nil` when this device holds no key (a
  /// plain folder, read no more than before; a device without the key for an encrypted one
  /// has the folder problem that says so).
  func encryptionStatus(_ cloud: CloudFolder) -> EncryptionStatus? {
    guard cloud.keyring != nil else { return nil }
    let folderKey = try? cloud.zoneKeyID()
    return EncryptionStatus(
      currentKey: cloud.keyring?.current.id.hex, heldKeys: cloud.keyring?.ids.map(\.hex) ?? [],
      folderKey: folderKey?.hex, missingKeys: cloud.lackingKeys.map(\.hex))
  }

  /// Why this device would not export (another copy of this device folder writes as this
  /// device in the shared folder, or a segment it wrote is gone), for `doctor`; `nil` when all
  /// is well or sync is not set up.
  package func sharedFolderProblem() -> ExportStop? {
    guard let store = mirror.store, let folder = settings.cloudFolder else { return nil }
    guard let cloud = try? cloudFolder(folder) else { return nil }
    return cloud.ownFolderProblem(of: store).map(ExportStop.init)
  }

  /// The mirror and the shared folder, or why sync cannot run.
  func syncParts(writing: Bool = false) throws(StashError) -> (MirrorStore, CloudFolder) {
    switch mirror {
    case .notEntitled:
      if settings.entitlement.opensMirror {
        throw .refused("Sync was turned on after this run started; it works from the next run")
      }
      throw StashError(
        .refused, "Sync is off on this device; turn it on with a shared folder",
        hint: .enableSync)
    case .unavailable(let reason):
      throw StashError(.damaged, reason)
    case .available(let store):
      guard let folder = settings.cloudFolder else {
        throw StashError(
          .refused, "No shared folder is set; turn sync on with one", hint: .enableSync)
      }
      if let overlap = overlap(ofSharedFolder: folder) {
        throw StashError(
          .refused, overlap + "; nothing was exchanged, turn sync on with another",
          hint: .enableSync)
      }
      if writing, let local {
        // A copied folder takes its own identity before a sync writes anything (both
        // stores); a folder that never said where it is says so now.
        try ensureOwnIncarnation(of: local, recording: true)
      }
      if let local, local.deviceID != store.content.deviceID {
        throw StashError(
          .refused,
          "An earlier change of this device's identity did not finish (the local store and "
            + "the mirror name different devices); give it a new identity again",
          hint: .newIdentity)
      }
      return (store, try cloudFolder(folder))
    }
  }
}
