import LocalStore
import MirrorStore
import StashBase
import StashModel
import Synchronization

/// What `sync status` shows of a local store opened from its index: the digest, the records
/// not sent and the open conflicts, from the index's status and digest sections brought up to
/// date with the records the file's lines after the index's prefix touched.
struct IndexedLocalStatus: Sendable {
  /// The digest of the inventory.
  var digest: InventoryDigest
  /// The records whose row or tombstone differs from their checkpoint.
  var unsent: Set<RecordKey>
  /// How many conflicts are open.
  var openConflicts: Int
}

extension DeviceFolder {
  /// This folder as `sync status` reads it at the cost of a one-record command: for a folder
  /// opened with a focus (``SyncFolder/Options/focus(on:)``, `[]`: the settings only), the
  /// local store opened again from its index for the records its lines after the index's
  /// prefix touched and those its status section says changed since the sync that wrote it
  /// (``LocalStore/keysForIndexedStatus()``), with what status shows of the rest from the index's status and digest
  /// sections, and the mirror through its index (``SyncFolder/openMirrorForStatus()``). When
  /// the index cannot say (missing, damaged, without a status section or with one older than
  /// its prefix, checkpoints bound to another mirror than the one open), or this folder was
  /// read whole, the folder read whole: status then computes everything from the stores (and
  /// writes nothing: the next sync that reads the store whole writes the sections). Either
  /// way ``SyncFolder/syncStatus()`` and ``syncOverview(leavingOut:)`` say the same.
  ///
  /// - Throws: ``StashError`` when the folder cannot be opened again.
  public func openedForStatus() throws(StashError) -> DeviceFolder {
    guard let local, !local.content.isComplete else { return self }
    if let indexed = try indexedStatusFolder(keys: local.keysForIndexedStatus()) {
      return indexed
    }
    var options = folder.options
    options.focus = nil
    return try DeviceFolder.open(at: folder.home, options: options)
  }

  /// The folder opened focused on `keys` with its ``IndexedLocalStatus``; `nil` when the
  /// index cannot say.
  private func indexedStatusFolder(keys: Set<RecordKey>?) throws(StashError) -> DeviceFolder? {
    guard let keys else { return nil }
    var options = folder.options
    options.focus = LocalStore.Focus(keys: keys)
    let device = try DeviceFolder.open(at: folder.home, options: options)
    guard let local = device.local, let content = device.content,
      let status = local.indexedStatus(touched: keys)
    else { return nil }
    device.folder.openMirrorForStatus()
    guard let mirror = device.mirror.store, content.checkpointMirror == mirror.storeID else {
      return nil  // every record counts as not sent: that needs them all
    }
    var changes = [RecordKey: InventoryDigest.Entry?]()
    var unsent = status.pending
    let entries = Self.entries(of: content)
    for key in keys {
      changes[key] = .some(entries[key])
      if LocalStore.stateHash(of: key, in: content) != content.checkpoints[key]?.hash {
        unsent.insert(key)
      }
    }
    guard
      let digest = InventoryDigest.patching(
        sectionLength: status.digestLength, read: status.readDigest, with: changes)
    else { return nil }
    device.folder.indexedLocalStatus.withLock {
      $0 = IndexedLocalStatus(
        digest: digest, unsent: unsent, openConflicts: status.openConflicts)
    }
    return device
  }

  /// ``pendingRecords()`` from an ``IndexedLocalStatus``: its records not sent, and the
  /// mirror's versions waiting to be exported.
  func indexedPendingRecords(_ status: IndexedLocalStatus) -> [RecordKey] {
    var keys = status.unsent
    for ref in mirror.store?.content.pending ?? [] { keys.insert(ref.key) }
    return keys.sorted()
  }
}
