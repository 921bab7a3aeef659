import LocalStore
public import StashModel

extension SyncFolder {
  /// Whether the folder has an inventory (`default.store`). A folder opened for reading
  /// without one reads as empty and has nothing written to it.
  public var hasInventory: Bool { local != nil }

  /// Whether opening this folder created its inventory just now.
  public var wasCreated: Bool { local?.openReport.created ?? false }

  /// This device's identity, or `nil` when there is no inventory yet.
  public var deviceID: DeviceID? { local?.deviceID }
}
