import JSONLines
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

  /// Runs sync once (see ``SyncFolder/sync(progress:)``).
  ///
  /// - Throws: ``StashError`` when nothing could be done.
  public func sync(
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    try folder.sync(progress: progress)
  }

  /// Opens the device folder at `home` as cheaply as its sync state allows and syncs it once
  /// (see ``SyncFolder/sync(at:registry:options:progress:)``): what `stash sync` runs.
  ///
  /// - Throws: ``StashError`` when nothing could be done.
  public static func sync(
    at home: String, options: Options = Options(),
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    try SyncFolder.sync(
      at: home, registry: InventorySchemas.registry, options: inventoryOptions(options),
      progress: progress)
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
