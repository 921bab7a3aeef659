import LocalStore
import MirrorStore
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

extension SyncFolder {
  /// The names other devices go by, as their segments in the mirror say (empty without a
  /// mirror): what a tool's words for a device start from.
  package var peerNames: [DeviceID: String] {
    (mirror.store?.content.peers ?? [:]).compactMapValues(\.name)
  }

  /// Why the mirror (`cloud.store`) is not open although the saved entitlement opens it
  /// (missing and not creatable, damaged, unreadable or too new), worded for a person; `nil`
  /// when it is open or not wanted. The folder works anyway: sync is off until it is fixed.
  /// Reading it opens the mirror (on first use); opening the folder never throws for it.
  public var mirrorProblem: String? {
    if case .unavailable(let reason) = mirror { return reason }
    return nil
  }

  /// Calls `observer` after every save of the local store by this process (an edit, a
  /// resolution, or what a sync applied), with the keys of the records it wrote, outside the
  /// store's locks: where an app refreshes what it shows. Nothing is called for a folder
  /// without a store (opened for reading), nor for what another process saved (see
  /// ``refresh()``).
  public func observeSaves(_ observer: @escaping @Sendable (_ saved: Set<RecordKey>) -> Void) {
    local?.observeSaves { notice in observer(notice.keys) }
  }
}
