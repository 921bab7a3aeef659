import JSONLines
import LocalStore
import MirrorStore
import StashFiles
public import StashModel

/// What `stash sync new-identity` did.
public struct NewIdentityReport: Hashable, Sendable {
  /// The device id this folder synced as until now.
  public let previous: DeviceID
  /// Its own device id from now on.
  public let current: DeviceID
  /// Versions the next sync exports under the new id.
  public let versionsToExport: Int
}

extension SyncFolder {
  /// Gives this device folder a device identity of its own, keeping all its data: the cure for
  /// a folder restored from a backup (or copied) onto a second machine, which syncs as the
  /// same device as the original until then.
  ///
  /// Both stores are rewritten (as a compaction would: a new file, synchronized, renamed over
  /// the old one) with the new device id in their headers. In the mirror, every version the
  /// old id exported is marked for export again, because the other copy may not have the ones
  /// this copy wrote (duplicates are harmless: importing a version twice changes nothing), and
  /// the segments under the old id are to be read again, because a sync tool may have put the
  /// other copy's files under names this copy wrote. This copy's stock moves that it never
  /// exported move to the new id, so that both copies' moves add up (``IdentityChange``).
  /// Conflicts and the zone stay.
  ///
  /// The mirror is rewritten first. If the second rewrite does not happen (a crash), `sync`
  /// refuses to run until this is run again, which finishes with the same new id.
  ///
  /// - Returns: The old and new ids.
  /// - Throws: ``StashError`` when sync is not set up here (a new identity only matters to
  ///   sync), the folder is busy, or a store cannot be rewritten.
  public func takeNewIdentity() throws(StashError) -> NewIdentityReport {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    let local = try existingStore()
    guard let mirror = mirror.store else {
      if case .unavailable(let reason) = mirror { throw StashError(.damaged, reason) }
      throw StashError(
        .refused,
        "Sync is off on this device, so its identity matters to no other device; turn sync "
          + "on with a shared folder first", hint: .enableSync)
    }
    let before = local.deviceID
    // A copy the file system tells apart takes an identity of its own first: that is what was
    // asked, and its moves are already its own (re-keying them would count the original's
    // unexported moves twice).
    let incarnated = try ensureOwnIncarnation(of: local)
    do { try local.refresh() } catch { throw StashError(error) }
    do { try mirror.refresh() } catch { throw StashError(error) }
    if incarnated {
      return NewIdentityReport(
        previous: before, current: local.deviceID, versionsToExport: mirror.content.pending.count)
    }
    let previous = local.deviceID
    let finishing = mirror.content.deviceID != previous
    let current = finishing ? mirror.content.deviceID : DeviceID(newIdentifier().rawValue)!
    let change = IdentityChange(
      mirror: mirror.content, old: previous, new: current, droppingPending: !finishing)
    if !finishing {
      try rewrite(mirror, as: current, changes: Self.reKeyed(mirror.content, keeping: change))
    }
    let changes = change.localChanges(local.content.changesForCompaction).map {
      change -> LocalChange in
      guard case .putSettings(var settings) = change else { return change }
      settings.name = settings.name(changingID: previous, to: current)
      return .putSettings(settings)
    }
    try rewrite(local, as: current, changes: changes)
    return NewIdentityReport(
      previous: previous, current: current, versionsToExport: mirror.content.pending.count)
  }

  /// The mirror's live state with every exported version of `content`'s device pending again
  /// (its unexported ones dropped: see ``IdentityChange``) and its segments to be read again.
  private static func reKeyed(
    _ content: MirrorContent, keeping plan: IdentityChange
  ) -> [MirrorChange] {
    let old = content.deviceID
    let ownSegments = "devices/\(old.rawValue)/"
    return content.changesForCompaction.compactMap { change in
      switch change {
      case .addVersion(let version, let pending):
        guard plan.keeps(version) else { return nil }
        return .addVersion(version, pending: pending || version.author == old)
      case .markRead(let segment) where segment.hasPrefix(ownSegments):
        return nil
      default:
        return change
      }
    }
  }

  /// Replaces a store's file with one holding `changes` under a header naming `device`
  /// (``rewrite(_:as:changes:failure:)-(LogStore<Content>,_,_,_)``), then writes its index
  /// for the new file: the one on disk describes the file it replaced, and every command read
  /// the store whole until the next save.
  func rewrite<Store: IndexedStore>(
    _ store: Store, as device: DeviceID, changes: [Store.Content.Change],
    failure: (_ path: String, _ reason: String) -> StashError = newIdentityFailure
  ) throws(StashError) {
    try rewrite(store.file, as: device, changes: changes, failure: failure)
    store.maintainIndex()
  }

  /// The error of a rewrite for a new identity that failed.
  private static func newIdentityFailure(_ path: String, _ reason: String) -> StashError {
    StashError(
      .refused,
      "Could not give '\(path)' the new identity (\(reason)); nothing was lost, give it a "
        + "new identity again", hint: .newIdentity)
  }

  /// Replaces a store file with one holding `changes` under a header naming `device`, the way
  /// compaction replaces it (other processes notice the new file and read it again).
  ///
  /// - Parameter failure: The error for a rewrite that failed (the old file stays), given the
  ///   store's path and why.
  private func rewrite<Content: LogContent>(
    _ store: LogStore<Content>, as device: DeviceID, changes: [Content.Change],
    failure: (_ path: String, _ reason: String) -> StashError
  ) throws(StashError) {
    var header = store.header
    header.deviceID = device
    header.version = Content.version
    let temporary = TemporaryName.path(for: store.path, unique: "new-identity")
    do throws(LogError) {
      do { try fileSystem.removeFile(temporary) } catch { throw .io(error) }
      let log = try Log.create(at: temporary, header: header, fileSystem: fileSystem)
      if !changes.isEmpty { try log.append(changes.map(Content.operation(for:))) }
      do {
        try fileSystem.rename(temporary, to: store.path)
        try fileSystem.synchronizeDirectory(home)
      } catch {
        throw .io(error)
      }
      do { try store.refresh() } catch { throw error.logError }
    } catch {
      try? fileSystem.removeFile(temporary)
      throw failure(store.path, StashError(error).message)
    }
  }
}

/// A store with a derived index of its file: the local store and the mirror.
protocol IndexedStore {
  associatedtype Content: LogContent
  /// The store's file.
  var file: LogStore<Content> { get }
  /// Writes the index again when it is missing, of another file, or far behind.
  func maintainIndex()
}

extension LocalStore: IndexedStore {}
extension MirrorStore: IndexedStore {}
