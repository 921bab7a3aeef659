import CloudFolder
import Foundation
import JSONLines
import LocalStore
import MirrorStore
import StashFiles
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// A sync of sealed changes (`SealedChanges`): after a sync that left nothing to do, local
/// row and tombstone edits are all a sync has to look at, and only while the mirror, the
/// shared folder and the sealed part of the local store are exactly as that sync left them.
@Suite struct SealedChangesTests {
  typealias Setup = SyncSealTests.Setup

  func changes(_ setup: Setup) throws -> SealedChanges? {
    try Simulation.sealedChanges(at: setup.home.path)
  }

  func key(_ item: Item) -> RecordKey { RecordKey(model: "item", id: item.id) }

  func storeBytes(_ setup: Setup) throws -> [Data] {
    try ["default.store", "cloud.store"].map {
      try Data(contentsOf: setup.home.appendingPathComponent($0))
    }
  }

  @Test func aLocalEditAfterACleanSyncNamesOnlyThatRecord() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      #expect(try changes(setup)?.keys == [])  // nothing since the seal
      let koleston = try openDevice(setup.home).consume("Koleston")
      #expect(try changes(setup)?.keys == [key(koleston)])
      let batteries = try openDevice(setup.home).deleteItem("Batteries")
      #expect(try changes(setup)?.keys == [key(koleston), key(batteries)])
      let added = try openDevice(setup.home).addItem(
        Item(name: "Foils", quantity: 1, createdAt: epoch))
      #expect(try changes(setup)?.keys.contains(key(added)) == true)
    }
  }

  @Test func anythingButRowAndTombstoneEditsRunsTheFullSync() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      try openDevice(setup.home).folder.renameDevice("salon")
      #expect(try changes(setup) == nil)
    }
  }

  @Test func aChangedMirrorRunsTheFullSync() throws {
    // A changed shared folder: SealedImportTests.
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      _ = try openDevice(setup.home).consume("Koleston")
      let mirror = setup.home.path + "/cloud.store"
      try SyncSealTests().handEdit(mirror, "\"generation\":1", "\"generation\":2")
      #expect(try changes(setup) == nil)
    }
  }

  @Test func aRewrittenOrHandEditedLocalStoreRunsTheFullSync() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      _ = try openDevice(setup.home).consume("Koleston")
      try #require(try openDevice(setup.home).local).compact()
      #expect(try changes(setup) == nil)  // another file
    }
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      // The sealed part's last commit is a probe: a hand edit there is seen.
      let store = setup.home.path + "/default.store"
      let text = try String(contentsOfFile: store, encoding: .utf8)
      let last = try #require(text.split(separator: "\n").last)
      _ = try openDevice(setup.home).consume("Koleston")
      let edited = last.replacingOccurrences(of: "\"commit\"", with: "\"commiT\"")
      try SyncSealTests().handEdit(store, String(last), edited)
      #expect(try changes(setup) == nil)
    }
  }

  @Test func aSyncOfSealedChangesExportsTheEditAndSealsAgain() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      _ = try openDevice(setup.home).consume("Koleston")
      #expect(try changes(setup) != nil)
      let report = try DeviceFolder.sync(
        at: setup.home.path,
        options: DeviceFolder.Options(deviceName: "test-device", clock: { epoch }))
      #expect(report.ranSealedChanges)
      #expect(report.copiedToMirror == 1 && report.versionsExported == 1)
      #expect(report.appliedLocally == 0 && report.newConflicts.isEmpty)
      // Sealed again: the next sync is skipped, and a full one finds nothing to do.
      #expect(try setup.shortcut() != nil)
      let full = try setup.fullSync()
      #expect(full.copiedToMirror == 0 && full.versionsExported == 0)
      // The other device gets the edit.
      let b = try setup.secondDevice()
      #expect(try openDevice(b).item("Koleston").quantity == 4)
    }
  }

  /// The pass of a sync of sealed changes also looks at every record the import merged: here
  /// another device's segment arrives between the comparison and the sync, and the stores
  /// (too small for an index) are whole.
  @Test func aSegmentArrivingBeforeTheSyncIsImportedAndItsRecordPassedOver() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      _ = try openDevice(setup.home).consume("Koleston")
      let sealed = try #require(try changes(setup))
      let seal = try #require(SyncSeal.read(home: setup.home.path, fileSystem: POSIXFileSystem()))
      // Between the comparison and the sync, another device's segment arrives.
      let b = try setup.secondDevice()
      _ = try openDevice(b).consume("Batteries")
      _ = try openDevice(b).folder.sync()
      var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
      options.syncKeys = sealed.keys
      let before = try storeBytes(setup)
      var needing = Set<RecordKey>()
      let result = try #require(
        try DeviceFolder.open(at: setup.home.path, options: options).folder
          .syncSealedChanges(seal: seal, changes: sealed, needing: &needing, progress: { _, _ in }))
      #expect(try storeBytes(setup) != before)
      #expect(result.versionsImported == 1 && result.copiedToMirror == 1)
      #expect(result.appliedLocally == 1)  // Batteries, which the local edits did not touch
      #expect(try openDevice(setup.home).item("Batteries").quantity == 11)
      let full = try setup.fullSync()
      #expect(full.appliedLocally == 0 && full.copiedToMirror == 0)
    }
  }

  /// A full sync leaves the mirror's index up to date once its saves are done, so that the
  /// next sync of sealed changes opens the mirror from it (an index written at one of the
  /// export's saves would be behind by the rest: 14 MB of export marks after a first sync of
  /// 100,000 items, more than a focused open replays).
  @Test func aFullSyncLeavesTheMirrorIndexCurrent() throws {
    try withTemporaryFolder { folder in
      let cloud = folder.appendingPathComponent("cloud")
      let home = folder.appendingPathComponent("a")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
      options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1, rewriteAfterBytes: 1)
      try DeviceFolder.open(at: home.path, options: options).folder.enableSync(cloud: cloud.path)
      let device = try DeviceFolder.open(at: home.path, options: options)
      for name in ["Koleston", "Batteries", "Foils"] {
        try device.addItem(Item(name: name, quantity: 5, createdAt: epoch))
      }
      let report = try device.folder.sync()
      #expect(report.versionsExported == 3)
      let mirror = try MirrorStore.open(
        folder: home.path, schemas: InventorySchemas.registry, lock: FolderLock(folder: home.path),
        focus: [RecordKey(model: "item", id: try device.item("Foils").id)])
      #expect(mirror.indexUse == .used(tailBytes: 0), "\(mirror.indexUse)")
    }
  }
}
