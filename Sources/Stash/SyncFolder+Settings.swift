import JSONLines
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
    _ = try save(what) { content, transaction throws(StashError) in
      var settings = content.settings
      change(&settings)
      if settings != content.settings { transaction.setSettings(settings) }
    }
  }
}

extension SyncFolder {
  /// Runs one save of the local store: a refusal of `body` as it is, a failure of the store
  /// as a ``StashError`` carrying the store's error.
  func save<T>(
    _ action: String, _ body: (LocalContent, inout LocalTransaction) throws(StashError) -> T
  ) throws(StashError) -> T {
    changeHub.beginWrite()
    defer { changeHub.endWrite() }
    let store = try writableStore()
    let here = store.content.settings.folderIdentity == nil ? currentFolderIdentity() : nil
    var wrote = false
    let result: T
    do throws(SaveError<LocalStoreError, StashError>) {
      result = try store.update(action, origin: .user) {
        content, transaction throws(StashError) in
        let result = try body(content, &transaction)
        wrote = !transaction.isEmpty
        // A folder that never said where it is (one of an older format) says so in its first
        // save, with whatever settings that save writes.
        if let here, content.settings.folderIdentity == nil, wrote {
          var settings =
            transaction.changes.reversed().lazy.compactMap { change in
              if case .putSettings(let settings) = change { settings } else { nil }
            }.first ?? content.settings
          settings.folderIdentity = here
          transaction.setSettings(settings)
        }
        return result
      }
    } catch {
      switch error {
      case .store(let failure): throw StashError(failure)
      case .refused(let refusal): throw refusal
      }
    }
    // A copied folder takes its own identity once its first write is saved (that write's moves
    // were tallied under it already): a refused command writes nothing. The write is saved
    // whatever happens next: a rewrite that fails is told and tried again by the next write.
    if wrote && isCopy(store) {
      do {
        try ensureOwnIncarnation(of: store)
      } catch {
        options.notices(
          StoreNotice(
            .newIncarnation,
            "\(action.prefix(1).uppercased() + action.dropFirst()) was saved, but the copied "
              + "folder '\(home)' could not take its own identity yet (\(error.message)); the "
              + "next change tries again"))
      }
    }
    return result
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
    do { try local?.refresh() } catch { throw StashError(error) }
    do { try mirror.store?.refresh() } catch { throw StashError(error) }
  }
}
