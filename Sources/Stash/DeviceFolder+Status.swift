import CloudFolder
import LocalStore
import MirrorStore
import StashBase
public import StashModel
import Synchronization

/// Another device of the shared folder, as `sync status` lists it.
public struct PeerStatus: Hashable, Sendable {
  /// Its identity.
  public let device: DeviceID
  /// Its name, as its segments say (`nil` until one of its segments was read here).
  public let name: String?
  /// When it last wrote a segment this device read.
  public let wroteAt: Timestamp?
  /// Segment files in its folder in the shared folder (`nil` when the folder was not read).
  public let segments: Int?
}

/// What `sync status` adds to ``SyncStatus``: the digest, the other devices, what has not
/// left this device, and what the shared folder shows of conflicts.
public struct SyncOverview: Sendable {
  /// The digest of this device's inventory.
  public var digest: InventoryDigest
  /// Every other device seen in the shared folder (read from its segments, or a folder of
  /// its own there), by name then id.
  public var peers: [PeerStatus] = []
  /// Records whose latest change has not left this device (not in the shared folder yet).
  public var pendingRecords: [RecordKey] = []
  /// Records for which the shared folder holds versions written at the same time on several
  /// devices: every device sees these as a conflict (or a merge) until one is kept. What other
  /// devices decided, or noticed, is known only once their resolution arrives.
  public var concurrentInFolder: Int = 0
}

extension DeviceFolder {
  /// The digest, the other devices and what waits to leave this device (the shared folder's
  /// device folders are listed, nothing is written).
  ///
  /// - Parameter otherZones: Devices to leave out of ``SyncOverview/peers``: those of other
  ///   zones (``SyncStatus/otherZones``), which are not devices of this one.
  public func syncOverview(leavingOut otherZones: [OtherZone] = []) -> SyncOverview {
    let indexed = folder.indexedLocalStatus.withLock { $0 }
    var overview = SyncOverview(digest: indexed?.digest ?? digest())
    overview.pendingRecords = indexed.map { indexedPendingRecords($0) } ?? pendingRecords()
    guard let store = mirror.store else { return overview }
    let content = store.content
    var segments = [DeviceID: Int]()
    if let folder = settings.cloudFolder {
      let cloud = CloudFolder(root: folder, fileSystem: fileSystem)
      segments = (try? cloud.deviceSegmentCounts()) ?? [:]
    }
    let devices = Set(content.peers.keys).union(segments.keys).subtracting([content.deviceID])
      .subtracting(otherZones.flatMap { $0.devices.map(\.device) })
    overview.peers = devices.map { device in
      let peer = content.peers[device]
      return PeerStatus(
        device: device, name: peer?.name, wroteAt: peer?.wroteAt,
        segments: settings.cloudFolder == nil ? nil : segments[device] ?? 0)
    }.sorted { ($0.name ?? "\u{10FFFF}", $0.device) < ($1.name ?? "\u{10FFFF}", $1.device) }
    overview.concurrentInFolder = content.concurrentRecordCount(
      summary: folder.mirrorSummary.withLock { $0 })
    return overview
  }

  /// The records with a change that has not left this device: a row or tombstone that differs
  /// from what this device last agreed on with the mirror (not copied to the mirror yet), or a
  /// version in the mirror still waiting to be exported. By model then id.
  package func pendingRecords() -> [RecordKey] {
    guard let local = content else { return [] }
    var keys = Set<RecordKey>()
    let store = mirror.store
    let bound = store != nil && local.checkpointMirror == store?.storeID
    for (key, entry) in Self.entries(of: local) {
      let checkpoint = bound ? local.checkpoints[key] : nil
      if checkpoint?.hash != entry.hash { keys.insert(key) }
    }
    if let store {
      for ref in store.content.pending { keys.insert(ref.key) }
    }
    return keys.sorted()
  }
}

/// A file in the shared folder that waits or would be rejected, and why.
public struct SharedFileNote: Hashable, Sendable {
  /// What it is about.
  public enum Kind: String, Hashable, Sendable {
    /// A segment (or part of one) not complete yet, or wrong.
    case segment
    /// A record in a segment held back by its photo (not complete yet, or wrong).
    case photo
  }

  /// The file, relative to the shared folder.
  public let file: String
  /// Whether the segment itself or a photo it needs is the matter.
  public let kind: Kind
  /// Why, for a person.
  public let reason: String

  init(_ rejection: SharedFolderRejection) {
    file = rejection.segment
    reason = rejection.reason
    kind = rejection.reason.contains(" its photo ") ? .photo : .segment
  }
}

/// A record deleted on this device whose deletion has not left it yet (not in the shared
/// folder: not copied to the mirror, or copied and not exported).
package struct PendingDeletion: Hashable, Sendable {
  /// The tombstone this device holds.
  package let tombstone: Tombstone
  /// The name the record had (or a reminder's message), when this device still knows it.
  package let name: String?
}

extension DeviceFolder {
  /// The records of `model` deleted here whose tombstone has not left this device (what
  /// ``pendingRecords()`` holds that is a tombstone), by id. A name comes from the deleted
  /// version in the mirror, else from this device's own log (back to its last compaction).
  package func pendingDeletions(of model: String) -> [PendingDeletion] {
    guard let local = content else { return [] }
    let mirror = self.mirror.store?.content
    return pendingRecords().compactMap { key in
      guard key.model == model, local.row(for: key) == nil,
        let tombstone = local.tombstones[key]
      else { return nil }
      var found = name(of: key, local: local, mirror: mirror)
      if found == nil, let entries = try? localHistory(of: key) {
        let deleted = entries.last { $0.record?.snapshotHash == tombstone.deletedHash }
        found = deleted?.record?.lookupName
      }
      return PendingDeletion(tombstone: tombstone, name: found)
    }
  }
}
