public import JSONLines
import LocalStore
public import StashModel

// The sync folder's operations, repeated on the inventory so that inventory code reads as
// before. Each is the sync folder's own; see there for the details.
extension DeviceFolder {
  /// Whether the folder has an inventory (`default.store`).
  public var hasInventory: Bool { folder.hasInventory }
  /// Whether opening this folder created its inventory just now.
  public var wasCreated: Bool { folder.wasCreated }
  /// This device's identity, or `nil` when there is no inventory yet.
  public var deviceID: DeviceID? { folder.deviceID }
  /// This device's settings (defaults when there is no store yet).
  public var settings: DeviceSettings { folder.settings }

  /// Runs sync once (see ``SyncFolder/sync(sealing:progress:)``), then refreshes
  /// `default.store.digest`.
  ///
  /// The local index a pass's save writes (a first sync's, a second device's) and the digest
  /// are computed on another core while the export runs, and written before this returns
  /// (``LocalStore/deferringIndexWrites(_:)``).
  ///
  /// - Throws: ``StashError`` when nothing could be done.
  public func sync(
    sealing: Bool = false, progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    func run() throws(StashError) -> SyncRunReport {
      // Derived: what `sync status` rehashes less of, computed on another core during the
      // export from the store as the pass left it (the export never writes it).
      var digest: DigestFileJob?
      let report = try folder.sync(sealing: sealing, progress: progress) {
        digest = startDigestFile()
      }
      digest?.finish()  // none when the store was not read whole: nothing to write then
      return report
    }
    guard let local else { return try run() }
    return try local.deferringIndexWrites(run)
  }

  /// The report of a sync with nothing new, without opening either store, when the sync seal
  /// in `home` matches both stores and the shared folder as they are now; `nil` otherwise
  /// (see ``SyncFolder/syncIfUnchanged(at:lockTimeout:now:fileSystem:)``).
  ///
  /// - Throws: ``StashError`` (busy) when another process holds the folder.
  public static func syncIfUnchanged(
    at home: String, lockTimeout: Double = 3, now: Timestamp = .now()
  ) throws(StashError) -> SyncRunReport? {
    try SyncFolder.syncIfUnchanged(at: home, lockTimeout: lockTimeout, now: now)
  }

  /// The local changes since the sync seal in `home` when a sync of those alone is the whole
  /// sync (see ``SealedChanges``); `nil` when the full sync must run.
  ///
  /// - Throws: ``StashError`` (busy) when another process holds the folder.
  public static func sealedChanges(
    at home: String, lockTimeout: Double = 3, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) -> SealedChanges? {
    try SyncFolder.sealedChanges(
      at: home, schemas: InventorySchemas.registry, lockTimeout: lockTimeout,
      fileSystem: fileSystem)
  }

  /// Runs a sync of the sealed changes the folder was opened for (see
  /// ``SyncFolder/syncSealedChanges(progress:)``); `nil`, having written nothing, when the
  /// full sync must run instead.
  ///
  /// - Throws: ``StashError`` when nothing could be done.
  public func syncSealedChanges(
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport? {
    let report = try folder.syncSealedChanges(progress: progress)
    if report != nil { writeDigestFile() }  // only from a store read whole
    return report
  }

  /// Catches up with what another instance or process saved (see ``SyncFolder/refresh()``).
  ///
  /// - Throws: ``StashError`` when a store cannot be read.
  public func refresh() throws(StashError) { try folder.refresh() }

  /// Resolves a conflict (see ``SyncFolder/resolveConflict(_:keep:)``).
  ///
  /// - Throws: ``StashError`` when the conflict or the choice does not fit.
  @discardableResult
  public func resolveConflict(
    _ text: String, keep choice: ResolutionChoice
  ) throws(StashError) -> SyncConflict { try folder.resolveConflict(text, keep: choice) }

  /// Conflicts recorded on this device, oldest first.
  public func conflicts(includingSettled: Bool = false) -> [SyncConflict] {
    folder.conflicts(includingSettled: includingSettled)
  }

  /// The conflict `text` names (its id or a unique prefix).
  ///
  /// - Throws: ``StashError`` when nothing or several conflicts match.
  public func conflict(_ text: String) throws(StashError) -> SyncConflict {
    try folder.conflict(text)
  }

  /// Who holds a side of a conflict, in words a person knows.
  public func sideName(_ side: ConflictSide) -> String { folder.sideName(side) }

  /// The fields whose values differ between the live sides of a conflict.
  public func differences(in conflict: SyncConflict) -> [FieldDifference] {
    folder.differences(in: conflict)
  }

  /// For a below-zero conflict: how many units were used and how many were there.
  public func belowZeroFigures(of conflict: SyncConflict) -> (used: Int64, there: Int64)? {
    folder.belowZeroFigures(of: conflict)
  }

  /// One line saying what kind of disagreement this is and what to do about it.
  public func explanation(of conflict: SyncConflict) -> String {
    folder.explanation(of: conflict)
  }

  /// Turns sync on through `cloud` from the next run.
  ///
  /// - Throws: ``StashError`` when the folder cannot be used.
  public func enableSync(cloud: String) throws(StashError) { try folder.enableSync(cloud: cloud) }

  /// Checks that `cloud` can be the shared folder, writing nothing (see
  /// ``SyncFolder/checkSharedFolder(_:)``).
  ///
  /// - Returns: The shared folder's absolute path.
  /// - Throws: ``StashError`` (refused) naming the folder and what to do.
  @discardableResult
  public func checkSharedFolder(_ cloud: String) throws(StashError) -> String {
    try folder.checkSharedFolder(cloud)
  }

  /// Turns sync off from the next run.
  ///
  /// - Throws: ``StashError`` when the save fails.
  public func disableSync() throws(StashError) { try folder.disableSync() }

  /// Where sync stands.
  public func syncStatus() -> SyncStatus { folder.syncStatus() }

  /// Why this device would not export, for `doctor`.
  public func sharedFolderProblem() -> ExportStop? { folder.sharedFolderProblem() }

  /// Saves a new entitlement.
  ///
  /// - Throws: ``StashError`` when the save fails.
  public func saveEntitlement(_ entitlement: Entitlement) throws(StashError) {
    try folder.saveEntitlement(entitlement)
  }

  /// Renames this device.
  ///
  /// - Throws: ``StashError`` for an empty name or a failed save.
  public func renameDevice(_ name: String) throws(StashError) { try folder.renameDevice(name) }

  /// Gives this device folder a device identity of its own.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/takeNewIdentity()`` does.
  public func takeNewIdentity() throws(StashError) -> NewIdentityReport {
    try folder.takeNewIdentity()
  }

  /// Has this device join another zone of the shared folder (a zone race's cure).
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/joinZone(_:)`` does.
  public func joinZone(_ text: String) throws(StashError) -> ZoneJoinReport {
    try folder.joinZone(text)
  }
}
