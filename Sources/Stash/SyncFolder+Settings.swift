import LocalStore
import MirrorStore
public import StashModel

extension SyncFolder {
  /// This device's settings (defaults when there is no store yet).
  public var settings: DeviceSettings {
    content?.settings ?? DeviceSettings(name: "")
  }

  /// Saves a new entitlement from a verified purchase. It takes effect the next time the
  /// folder is opened: the mirror of this process stays as it was opened.
  ///
  /// - Throws: ``StashError`` when the save fails.
  public func saveEntitlement(_ entitlement: Entitlement) throws(StashError) {
    try updateSettings("the entitlement") { $0.entitlement = entitlement }
  }

  /// Renames this device.
  ///
  /// - Throws: ``StashError`` for an empty name or a failed save.
  public func renameDevice(_ name: String) throws(StashError) {
    guard !name.allSatisfy(\.isWhitespace) else {
      throw .refused("A device needs a name that is not empty")
    }
    try updateSettings("the device name") { $0.name = name }
  }

  /// Changes the settings with `change`, against the freshest copy.
  func updateSettings(
    _ what: String, _ change: @escaping (inout DeviceSettings) -> Void
  ) throws(StashError) {
    _ = try save(what) { content, transaction in
      var settings = content.settings
      change(&settings)
      if settings != content.settings { transaction.setSettings(settings) }
    }
  }
}

extension SyncFolder {
  /// Runs one save of the local store, turning every failure into a ``StashError``.
  func save<T>(
    _ action: String, _ body: (LocalContent, inout LocalTransaction) throws -> T
  ) throws(StashError) -> T {
    let store = try writableStore()
    do {
      return try store.update(action, origin: .user, body)
    } catch {
      throw StashError(wrapping: error)
    }
  }
}

extension SyncFolder {
  /// Catches up with what another instance (or another process) saved to this folder's
  /// stores since they were read: rows, conflicts, settings and the mirror's versions.
  ///
  /// Reads only; a store that was never written is left as it is.
  ///
  /// - Throws: ``StashError`` when a store cannot be read (busy, damaged).
  public func refresh() throws(StashError) {
    do {
      try local?.refresh()
      try mirror.store?.refresh()
    } catch {
      throw StashError(wrapping: error)
    }
  }
}
