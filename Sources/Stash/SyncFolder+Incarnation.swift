import JSONLines
import LocalStore
import MirrorStore
package import StashFiles
public import StashModel
import Synchronization

extension SyncFolder {
  /// Where this device folder is on its file system now, or `nil` when that cannot be told.
  func currentFolderIdentity() -> FolderIdentity? {
    Self.folderIdentity(of: home, fileSystem: fileSystem)
  }

  /// Where the folder `home` is on its file system (its device and inode numbers, and its
  /// birth time where the file system keeps one), or `nil` when that cannot be told.
  package static func folderIdentity(
    of home: String, fileSystem: any FileSystem = POSIXFileSystem()
  ) -> FolderIdentity? {
    guard let found = try? fileSystem.identity(atPath: home), found.kind == .directory else {
      return nil
    }
    return FolderIdentity(
      device: found.device, inode: found.inode,
      born: fileSystem.birthTime(atPath: home)?.description)
  }

  /// Whether this folder is somewhere else than where it last wrote: copied, or restored from
  /// a backup (DESIGN, "Tallies belong to an incarnation"). Reads only.
  func isCopy(_ local: LocalStore) -> Bool {
    guard let here = currentFolderIdentity(),
      let recorded = local.content.settings.folderIdentity
    else { return false }
    return !recorded.isSameFolder(as: here)
  }

  /// The device a write of this process acts as: this device's, or, in a copied folder not
  /// rewritten yet, the identity it will take once the write is saved (the same for every
  /// write of the process). Whatever a record says about "this device" (a stock tally, a
  /// lease, a per-device record's id) names this one, never ``deviceID`` alone, which a copy
  /// shares with its original until its first save.
  ///
  /// - Throws: ``StashError`` when the folder has no store yet.
  public func writingDevice() throws(StashError) -> DeviceID {
    let local = try existingStore()
    guard isCopy(local) else { return local.deviceID }
    return prospectiveIdentity.withLock { chosen in
      if let chosen { return chosen }
      let fresh = DeviceID(newIdentifier().rawValue)!
      chosen = fresh
      return fresh
    }
  }

  /// Makes this device write as its own incarnation (DESIGN, "Tallies belong to an
  /// incarnation").
  ///
  /// The local store records where the folder is. A folder found somewhere else was copied
  /// or restored from a backup: the copy and the original would tally their stock moves
  /// under one device id, and merging by each device's larger tally would swallow moves. So
  /// the copy takes a device identity of its own (both stores are rewritten with it, as a
  /// compaction rewrites them; nothing else changes): the moves both copies already had count
  /// once, and every move made on either afterwards counts, whatever the timing. A save does
  /// this once it is written (its moves were tallied under the new identity already:
  /// ``writingDevice()``), so a refused command writes nothing; a sync, before it writes.
  ///
  /// - Parameter recording: Whether a folder that never recorded where it is (a new one, one
  ///   of an older format) records it now, in a transaction of its own; a save records it in
  ///   its own transaction instead (``save(_:_:)``).
  /// - Returns: Whether the folder took a new identity just now.
  /// - Throws: ``StashError`` when the folder is busy or a store cannot be written.
  @discardableResult
  func ensureOwnIncarnation(
    of local: LocalStore, recording: Bool = false
  ) throws(StashError) -> Bool {
    guard let here = currentFolderIdentity(),
      !(local.content.settings.folderIdentity.map { $0.isSameFolder(as: here) } ?? !recording)
    else { return false }
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    do { try local.refresh() } catch { throw StashError(error) }
    guard let recorded = local.content.settings.folderIdentity else {
      guard recording else { return false }
      do {
        try local.update("where the device folder is") { content, transaction in
          var settings = content.settings
          settings.folderIdentity = here
          transaction.setSettings(settings)
        }
      } catch {
        throw StashError(error.storeFailure)
      }
      return false
    }
    guard !recorded.isSameFolder(as: here) else { return false }
    try takeIncarnation(of: local, at: here, was: recorded)
    return true
  }

  private func takeIncarnation(
    of local: LocalStore, at here: FolderIdentity, was recorded: FolderIdentity
  ) throws(StashError) {
    // A copy is found by a process that read its stores whole (their indexes describe the
    // original's files, not the copy's); a partial content is never rewritten.
    guard local.content.isComplete else {
      throw StashError(
        .refused,
        "The device folder '\(home)' was copied or restored and must take an identity of its "
          + "own before it is written; open it whole to do so")
    }
    let mirror = try incarnationMirror()
    let previous = local.deviceID
    // A mirror rewritten already by an incarnation a crash interrupted names the new id.
    let interrupted = mirror.flatMap {
      $0.content.deviceID != previous ? $0.content.deviceID : nil
    }
    let current: DeviceID
    if let interrupted { current = interrupted } else { current = try writingDevice() }
    if let mirror, mirror.content.deviceID != current {
      guard mirror.content.isComplete else {
        throw StashError(
          .refused, "The mirror of the copied folder '\(home)' must be read whole first")
      }
      try rewrite(mirror, as: current, changes: mirror.content.changesForCompaction)
    }
    let changes = local.content.changesForCompaction.map { change -> LocalChange in
      guard case .putSettings(var settings) = change else { return change }
      settings.folderIdentity = here
      settings.name = settings.name(changingID: previous, to: current)
      return .putSettings(settings)
    }
    try rewrite(local, as: current, changes: changes)
    options.notices(
      StoreNotice(
        .newIncarnation,
        "The device folder '\(home)' was copied or restored (it was at \(recorded), it is now "
          + "at \(here)): it syncs from now on as a device of its own, '\(current.rawValue)' "
          + "(it was '\(previous.rawValue)'), so that what is done on it and on the original "
          + "both count"))
  }

  /// The mirror, when the folder has one: the open one, or `cloud.store` opened for the
  /// rewrite when sync is not in effect in this process (it must name the same device).
  private func incarnationMirror() throws(StashError) -> MirrorStore? {
    if let store = mirror.store { return store }
    let path = home + "/" + MirrorStore.fileName
    guard (try? fileSystem.identity(atPath: path)) != nil, let local else { return nil }
    do {
      return try MirrorStore.open(
        folder: home, schemas: local.schemas, lock: lock, access: .writing,
        compaction: options.compaction, fileSystem: fileSystem)
    } catch {
      // A mirror that does not open is reported by every sync; it is not rewritten, and a
      // sync asks for a new identity once it opens again (the two stores name two devices).
      return nil
    }
  }
}
