import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
let otherDevice = DeviceID("00000000-0000-4000-8000-0000000000b2")!

/// One device folder's local store and mirror, with helpers to edit either side. Edits made
/// "in the mirror" stand for another device whose versions arrived.
final class TwoStores: Sendable {
  let folder: URL
  let local: LocalStore
  let mirror: MirrorStore
  let clock: TickingClock

  /// How this device's reconciler merges concurrent versions.
  let rules: MergeRules

  init(
    _ folder: URL, device: DeviceID = DeviceID("00000000-0000-4000-8000-0000000000a1")!,
    fileSystem: any FileSystem = POSIXFileSystem(), compaction: CompactionPolicy = .standard,
    frozenClock: Bool = false, rules: MergeRules = .design
  ) throws {
    self.folder = folder
    let lock = FolderLock(folder: folder.path, fileSystem: fileSystem)
    local = try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry, lock: lock,
      create: .init(deviceID: device, deviceName: "here", time: epoch), compaction: compaction,
      fileSystem: fileSystem)
    mirror = try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry, lock: lock,
      create: (local.deviceID, epoch, nil), compaction: compaction, fileSystem: fileSystem)
    clock = TickingClock(start: epoch, frozen: frozenClock)
    self.rules = rules
  }

  /// A time that moves forward one second each call.
  func tick() -> Timestamp { clock.tick() }

  /// The reconciler; its clock reads the current time without moving it.
  var reconciler: Reconciler {
    try! Reconciler(local: local, mirror: mirror, clock: { [clock] in clock.now }, rules: rules)
  }

  @discardableResult
  func pass(_ keys: Set<RecordKey>? = nil) throws(ReconcileError) -> PassReport {
    let report = try reconciler.reconcile(keys: keys)
    expectHealthy()
    return report
  }

  func expectHealthy(sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(local.content.checkInvariants() == [], sourceLocation: sourceLocation)
    #expect(mirror.content.checkInvariants() == [], sourceLocation: sourceLocation)
  }

  /// Both files' bytes, to prove a pass changed nothing.
  func files() throws -> [Data] {
    try [local.path, mirror.path].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
  }

  // MARK: Local edits (what a person does on this device)

  @discardableResult
  func addLocally(_ item: Item) throws -> Item {
    try local.update("add") { _, transaction in try transaction.insert(item.record) }
    return item
  }

  @discardableResult
  func editLocally(_ id: RecordID, _ change: (inout Item) -> Void) throws -> Item {
    try local.update("edit") { content, transaction in
      let row = content.row(for: RecordKey(model: "item", id: id))!
      var item = try Item(record: row.record)
      change(&item)
      item.updatedAt = tick()
      try transaction.replace(row.row, with: item.record)
      return item
    }
  }

  func deleteLocally(_ id: RecordID) throws {
    try local.update("delete") { content, transaction in
      transaction.delete(content.row(for: RecordKey(model: "item", id: id))!, at: tick())
    }
  }

  /// Removes the row without a tombstone: a row that vanished (absence, not deletion).
  func dropLocally(_ id: RecordID) throws {
    try local.update("drop") { content, transaction in
      transaction.removeRow(content.row(for: RecordKey(model: "item", id: id))!.row)
    }
  }

  func localItem(_ id: RecordID) -> Item? {
    local.content.row(for: RecordKey(model: "item", id: id)).map { try! Item(record: $0.record) }
  }

  // MARK: Mirror edits (another device's versions arriving)

  /// Writes a version from another device over the mirror's current leaves.
  @discardableResult
  func editInMirror(_ snapshot: Snapshot, over parents: Set<VersionID>? = nil) throws
    -> MirrorVersion
  {
    try mirror.update { content, transaction in
      let over = parents ?? content.side(for: snapshot.key).leafIDs
      let version = MirrorVersion(
        snapshot: snapshot, parents: over,
        generation: content.nextGeneration(after: over, of: snapshot.key), author: otherDevice,
        authoredAt: tick())
      transaction.merge(version)
      return version
    }
  }

  func mirrorItem(_ id: RecordID) -> Item? {
    mirror.content.side(for: RecordKey(model: "item", id: id)).winner?.snapshot.record.map {
      try! Item(record: $0)
    }
  }

  var openConflicts: [SyncConflict] { local.content.openConflicts }
}

func tube(_ name: String = "Koleston 7/1", quantity: Int64 = 5, photo: BlobRef? = nil) -> Item {
  Item(name: name, quantity: quantity, unit: "tube", photo: photo, createdAt: epoch)
}

extension TwoStores {
  /// Stands in for the transport: merges `versions` (by default every version this device's
  /// mirror holds) into `other`'s mirror, as an import would.
  func deliver(to other: TwoStores, only versions: [MirrorVersion]? = nil) throws {
    let all = versions ?? mirror.content.versions.values.flatMap(\.values)
    try other.mirror.update { _, transaction in
      for version in all { transaction.merge(version) }
    }
  }
}
