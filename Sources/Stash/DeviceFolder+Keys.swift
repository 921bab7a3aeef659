public import StashCrypto

/// The encrypted shared folder's keys, as ``SyncFolder`` keeps them (see
/// `SyncFolder+Encryption.swift`).
extension DeviceFolder {
  /// Turns sync on through a new, empty, encrypted folder with a new key.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/enableEncryptedSync(cloud:)`` does.
  public func enableEncryptedSync(cloud: String) throws(StashError) -> KeyChangeReport {
    try folder.enableEncryptedSync(cloud: cloud)
  }

  /// Joins an encrypted folder, or enters keys a rotation made.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/addFolderKeys(_:cloud:)`` does.
  public func addFolderKeys(_ keys: [FolderKey], cloud: String?) throws(StashError)
    -> KeyChangeReport
  {
    try folder.addFolderKeys(keys, cloud: cloud)
  }

  /// Checks, writing nothing, that every key belongs to the encrypted folder `cloud`.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/checkFolderKeys(_:at:)`` does.
  public func checkFolderKeys(_ keys: [FolderKey], at cloud: String) throws(StashError) {
    try folder.checkFolderKeys(keys, at: cloud)
  }

  /// Checks, writing nothing, that `cloud` can become a new encrypted folder.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/checkNewEncryptedFolder(_:)`` does.
  public func checkNewEncryptedFolder(_ cloud: String) throws(StashError) {
    try folder.checkNewEncryptedFolder(cloud)
  }

  /// Checks, writing nothing, that a key rotation can be made here.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/checkRotation()`` does.
  public func checkRotation() throws(StashError) {
    try folder.checkRotation()
  }

  /// Makes a new key for the encrypted shared folder.
  ///
  /// - Throws: ``StashError`` as ``SyncFolder/rotateFolderKey()`` does.
  public func rotateFolderKey() throws(StashError) -> KeyChangeReport {
    try folder.rotateFolderKey()
  }
}
