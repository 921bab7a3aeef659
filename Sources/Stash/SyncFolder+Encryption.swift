package import CloudFolder
import JSONLines
import MirrorStore
public import StashCrypto
import StashModel

/// What turning on an encrypted folder, joining one, adding a key or rotating did.
public struct KeyChangeReport: Sendable {
  /// The key this device now seals with (the new one, for `--encrypt` and a rotation: show
  /// its ``FolderKey/syncKeyText`` once, to the person).
  public let current: FolderKey
  /// Every key this device holds, by id, oldest first.
  public let keyIDs: [KeyID]
  /// The key file's path (mode 0600).
  public let keyFile: String
  /// Versions the next sync exports to the new folder (every version this device holds,
  /// when it moved to another folder), else 0.
  public var versionsToExport = 0
}

extension SyncFolder {
  /// The key file's path in the device folder.
  package var keyFilePath: String { home + "/" + SyncKeyFile.fileName }

  /// The keys this device holds for its encrypted shared folder; `nil` when it has no key
  /// file (a plain folder).
  ///
  /// - Throws: ``StashError`` (category key) when the key file cannot be read.
  package func folderKeyring() throws(StashError) -> FolderKeyring? {
    try SyncKeyFile.read(at: keyFilePath)
  }

  /// The shared folder at `path`, with this device's keys when it holds any.
  func cloudFolder(_ path: String) throws(StashError) -> CloudFolder {
    CloudFolder(root: path, fileSystem: fileSystem, keyring: try folderKeyring())
  }

  /// Turns sync on through a new, empty folder that is encrypted from the start: makes a new
  /// random folder key, publishes the folder's `zone.json` sealed with it, keeps the key in
  /// the device's key file (mode 0600, beside any older keys), and records the folder.
  ///
  /// When this device synced another folder before (a plain one being left for this one),
  /// its mirror keeps its zone, and every version it holds waits to be exported again into
  /// the new folder; nothing of the inventory changes.
  ///
  /// - Parameter cloud: The new shared folder: it must exist and have no `zone.json`.
  /// - Returns: The new key: show its sync key text once.
  /// - Throws: ``StashError`` when the folder cannot be used or already has a zone file
  ///   (nothing is changed), or the system's random generator fails.
  public func enableEncryptedSync(cloud: String) throws(StashError) -> KeyChangeReport {
    let path = try checkSharedFolder(cloud)
    let key: FolderKey
    do { key = try FolderKey.random() } catch { throw .refused(error.description) }
    var keyring = try folderKeyring() ?? FolderKeyring(keys: [key])!
    keyring.add(key)
    let folder = CloudFolder(root: path, fileSystem: fileSystem, keyring: keyring)
    do throws(CloudError) {
      try folder.createEncryptedZone(mirror.store?.content.zone)
    } catch {
      throw StashError(
        .refused,
        "The folder '\(cloud)' cannot be turned into an encrypted shared folder: "
          + "\(error.description)")
    }
    return try adopt(keyring, cloud: path)
  }

  /// Joins an encrypted shared folder with its keys (or adds keys a rotation made), after
  /// checking that every key belongs to the folder.
  ///
  /// - Parameters:
  ///   - keys: The keys the person gave (from a file or standard input, never the command
  ///     line).
  ///   - cloud: The folder; `nil` for the one this device syncs now.
  /// - Returns: What this device holds now.
  /// - Throws: ``StashError``: category key when a key is not the folder's, or the folder is
  ///   not encrypted; refused when the folder cannot be used. Nothing is changed then.
  public func addFolderKeys(_ keys: [FolderKey], cloud: String?) throws(StashError)
    -> KeyChangeReport
  {
    guard !keys.isEmpty else {
      throw StashError(.key, "The key file holds no sync key; nothing was changed")
    }
    let path: String
    if let cloud {
      path = try checkSharedFolder(cloud)
    } else if let current = settings.cloudFolder {
      path = current
    } else {
      throw StashError(
        .refused, "No shared folder is set; turn sync on with one", hint: .enableSync)
    }
    try checkFolderKeys(keys, at: path)
    var keyring = try folderKeyring() ?? FolderKeyring(keys: keys)!
    for key in keys { keyring.add(key) }
    var report = try adopt(keyring, cloud: path)
    if report.versionsToExport == 0 {
      report.versionsToExport = try exportAgainAfterRotation(
        CloudFolder(root: path, fileSystem: fileSystem, keyring: keyring))
    }
    return report
  }

  /// Sets every version this device wrote to be exported again when it exported segments
  /// with a retired key after a rotation (before it saw the rotation): the devices holding the
  /// new key reject those, so their versions go out again, sealed with the new key.
  ///
  /// - Returns: The versions the next sync exports again, or 0.
  private func exportAgainAfterRotation(_ cloud: CloudFolder) throws(StashError) -> Int {
    guard let store = mirror.store else { return 0 }
    let device = store.content.deviceID
    guard let allowed = cloud.retiredAfter(for: device) else { return 0 }
    let own = "devices/\(device.rawValue)/"
    let late = store.content.exportedSegments.contains { path in
      guard path.hasPrefix(own) else { return false }
      return (Int64(path.dropFirst(own.count).prefix { $0.isNumber }) ?? 0) > allowed
    }
    guard late else { return 0 }
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    let changes = store.content.changesForCompaction.map { change -> MirrorChange in
      guard case .addVersion(let version, let pending) = change else { return change }
      return .addVersion(version, pending: pending || version.author == device)
    }
    try rewrite(store, as: device, changes: changes) { path, reason in
      StashError(
        .refused,
        "Could not rewrite '\(path)' to export this device's changes again (\(reason)); the "
          + "key was added; enter it again")
    }
    return store.content.pending.count
  }

  /// Checks, writing nothing, that every key belongs to the encrypted folder `cloud`: a
  /// refused key leaves no device folder behind.
  ///
  /// - Parameters:
  ///   - keys: The keys a person gave.
  ///   - cloud: The folder.
  /// - Throws: ``StashError``: category key when a key is not the folder's or the folder is
  ///   not encrypted, refused when the folder cannot be used.
  package func checkFolderKeys(_ keys: [FolderKey], at cloud: String) throws(StashError) {
    guard !keys.isEmpty else {
      throw StashError(.key, "The key file holds no sync key; nothing was changed")
    }
    let path = try checkSharedFolder(cloud)
    let folder = CloudFolder(root: path, fileSystem: fileSystem)
    for key in keys {
      let verdict: KeyVerdict
      do { verdict = try folder.verify(key) } catch { throw StashError(error) }
      switch verdict {
      case .zoneKey, .announced: continue
      case .wrong:
        throw StashError(
          .key,
          "The key '\(key.id.hex)' is not a key of the shared folder '\(path)' (another "
            + "folder's, or mistyped); nothing was changed")
      case .plainFolder:
        throw StashError(
          .key,
          "The shared folder '\(path)' is not encrypted; turn sync on without a key; nothing "
            + "was changed")
      case .noZone:
        throw StashError(
          .refused,
          "The shared folder '\(path)' has no zone file yet: turn encryption on on the first "
            + "device, and let the sync tool deliver the folder; nothing was changed")
      }
    }
  }

  /// Checks, writing nothing, that `cloud` can become a new encrypted folder: it has no
  /// `zone.json` (an existing folder is joined with its key instead).
  ///
  /// - Throws: ``StashError`` when it cannot.
  package func checkNewEncryptedFolder(_ cloud: String) throws(StashError) {
    let path = try checkSharedFolder(cloud)
    let zone: String?
    do { zone = try CloudFolder(root: path, fileSystem: fileSystem).zoneIdentifier() } catch {
      throw StashError(error)
    }
    if zone != nil {
      throw StashError(
        .refused,
        "The folder '\(cloud)' is already a shared folder: join an encrypted one with its sync "
          + "key in a file, or move a plain one to a new empty folder; nothing was changed")
    }
  }

  /// Makes a new key for the encrypted shared folder: it is announced in the folder (sealed
  /// with itself, so that other devices can check it when a person enters it), kept in the
  /// key file after the older ones, and seals everything this device writes from now on.
  ///
  /// - Returns: The new key: show its sync key text once.
  /// - Throws: ``StashError`` when sync is off, the folder is not encrypted here, or the key
  ///   cannot be announced or kept.
  public func rotateFolderKey() throws(StashError) -> KeyChangeReport {
    let (path, held) = try rotationParts()
    var keyring = held
    let key: FolderKey
    do { key = try FolderKey.random() } catch { throw .refused(error.description) }
    keyring.add(key)
    do throws(CloudError) {
      try CloudFolder(root: path, fileSystem: fileSystem, keyring: keyring).announceCurrentKey()
    } catch {
      throw StashError(error)
    }
    return try adopt(keyring, cloud: path)
  }

  /// Checks, writing nothing, that a rotation can be made: sync is set up with a shared
  /// folder and this device holds its keys (a folder opened for reading can check, so that a
  /// refusal creates nothing).
  ///
  /// - Throws: ``StashError`` as ``rotateFolderKey()`` refuses.
  package func checkRotation() throws(StashError) {
    _ = try rotationParts()
  }

  /// The shared folder and the keys a rotation starts from.
  private func rotationParts() throws(StashError) -> (String, FolderKeyring) {
    guard let path = settings.cloudFolder else {
      throw StashError(
        .refused, "No shared folder is set; turn sync on with one", hint: .enableSync)
    }
    guard let keyring = try folderKeyring() else {
      throw StashError(
        .key, "This device holds no key: the shared folder '\(path)' is not encrypted here")
    }
    return (path, keyring)
  }

  /// Keeps `keyring`, records `cloud` as the shared folder, and when it is another folder
  /// than before, sets the mirror up to export everything there.
  private func adopt(_ keyring: FolderKeyring, cloud path: String) throws(StashError)
    -> KeyChangeReport
  {
    let moving = settings.cloudFolder.map { $0 != path } ?? false
    try SyncKeyFile.write(keyring, to: keyFilePath)
    // What the last clean sync sealed was read with the old keys: the seal goes, the last
    // transfer times stay.
    var state = SyncState.read(home: home, fileSystem: fileSystem)
    if state.seal != nil {
      state.seal = nil
      state.write(home: home, fileSystem: fileSystem)
    }
    try enableSync(cloud: path)
    var report = KeyChangeReport(
      current: keyring.current, keyIDs: keyring.ids, keyFile: keyFilePath)
    if moving { report.versionsToExport = try prepareMirrorForNewFolder() }
    return report
  }

  /// Rewrites the mirror for another shared folder: the same zone, every version waiting to
  /// be exported, nothing read or exported there yet.
  ///
  /// - Returns: The versions the next sync exports.
  private func prepareMirrorForNewFolder() throws(StashError) -> Int {
    guard let mirror = mirror.store, mirror.content.zone != nil else { return 0 }
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    do { try mirror.refresh() } catch { throw StashError(error) }
    let content = mirror.content
    let changes = content.changesForCompaction.compactMap { change -> MirrorChange? in
      switch change {
      case .addVersion(let version, _): .addVersion(version, pending: true)
      case .markRead, .markExported, .markExporting: nil
      default: change
      }
    }
    try rewrite(mirror, as: content.deviceID, changes: changes) { path, reason in
      StashError(
        .refused,
        "Could not rewrite '\(path)' for the new shared folder (\(reason)); turn sync on with "
          + "it again")
    }
    return mirror.content.pending.count
  }
}
