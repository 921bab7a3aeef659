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

/// Device folders that keep both indexes, as a large store's do: the local one written again
/// at every save, the mirror's only by a full sync (a focused mirror never writes it), so that
/// the mirror's file runs ahead of its index as it does after a few syncs.
private func indexedOptions() -> DeviceFolder.Options {
  var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
  options.index = LocalStore.IndexPolicy(minimumRows: 1, rewriteAfterBytes: 1)
  options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1)
  return options
}

private func open(_ home: URL) throws -> DeviceFolder {
  try DeviceFolder.open(at: home.path, options: indexedOptions())
}

/// Syncs `home` as `stash sync` does: a new process, opened as cheaply as the state allows.
private func sync(_ home: URL) throws -> SyncRunReport {
  try DeviceFolder.sync(at: home.path, options: indexedOptions())
}

/// A sync after another device's edit costs what that edit costs (issue 26, item 1): after a
/// clean sync, segments other devices add to the shared folder are imported into stores
/// opened for the records they name, and the pass looks at those records and the ones edited
/// here, not at every record (``SealedChanges``).
@Suite struct SealedImportTests {
  /// Two devices with the same three items, both synced clean (and sealed).
  struct Pair {
    let cloud: URL
    let a: URL
    let b: URL

    init(_ folder: URL) throws {
      cloud = folder.appendingPathComponent("cloud")
      a = folder.appendingPathComponent("a")
      b = folder.appendingPathComponent("b")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      for home in [a, b] { try open(home).folder.enableSync(cloud: cloud.path) }
      let first = try open(a)
      for (name, quantity) in [("Koleston", 5), ("Batteries", 12), ("Foils", 3)]
        as [(String, Int64)]
      {
        try first.addItem(Item(name: name, quantity: quantity, createdAt: epoch))
      }
      for home in [a, b, a, b] { _ = try sync(home) }
    }
  }

  @Test func anotherDevicesEditIsImportedOverItsRecordOnly() throws {
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      _ = try open(pair.b).consume("Batteries")
      _ = try sync(pair.b)
      let report = try sync(pair.a)
      #expect(report.choice == .sealedChanges(localFocused: true, mirrorFocused: true))
      #expect(report.segmentsRead == 1 && report.versionsImported == 1)
      #expect(report.appliedLocally == 1 && report.copiedToMirror == 0)
      #expect(try open(pair.a).item("Batteries").quantity == 11)
      // Sealed again: the next sync has nothing to do, and a full one agrees.
      #expect(try sync(pair.a).choice == .nothingNew)
      let full = try open(pair.a).folder.syncFully()
      #expect(full.appliedLocally == 0 && full.copiedToMirror == 0)
      #expect(full.versionsImported == 0 && full.versionsExported == 0)
    }
  }

  /// The mirror opened for a few records also holds those its file added after its index
  /// (the first import's): the second edit of the same record must still find its local row.
  @Test func aSecondEditOfTheSameRecordFindsItsRow() throws {
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      for expected in [11, 10, 9] as [Int64] {
        _ = try open(pair.b).consume("Batteries")
        _ = try sync(pair.b)
        let report = try sync(pair.a)
        #expect(report.versionsImported == 1 && report.appliedLocally == 1)
        #expect(report.duplicates == 0 && report.choice != .full)
        #expect(try open(pair.a).item("Batteries").quantity == expected)
      }
      let full = try open(pair.a).folder.syncFully()
      #expect(full.duplicates == 0 && full.appliedLocally == 0 && full.copiedToMirror == 0)
      #expect(try open(pair.a).items().count == 3)
    }
  }

  @Test func editsOnBothDevicesMeetInOneSyncOfEach() throws {
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      _ = try open(pair.b).consume("Batteries")
      _ = try open(pair.b).restock("Koleston", count: 2)
      _ = try sync(pair.b)
      _ = try open(pair.a).consume("Koleston")  // the same record, here
      let report = try sync(pair.a)
      #expect(report.choice == .sealedChanges(localFocused: true, mirrorFocused: true))
      #expect(report.versionsImported == 2 && report.merged == 1)
      #expect(try open(pair.a).item("Koleston").quantity == 6)  // 5 + 2 - 1: both moves
      #expect(try open(pair.a).item("Batteries").quantity == 11)
      #expect(try sync(pair.b).choice != .full)
      #expect(try open(pair.b).item("Koleston").quantity == 6)
    }
  }

  @Test func aRemovedOrChangedFileInTheSharedFolderRunsTheFullSync() throws {
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      _ = try open(pair.b).consume("Batteries")
      _ = try sync(pair.b)
      // Another device's segment only added: a gain.
      #expect(try Simulation.sealedChanges(at: pair.a.path) != nil)
      // One the seal saw, removed: the full sync runs.
      let devices = pair.cloud.appendingPathComponent("devices")
      let own = try #require(
        try FileManager.default.contentsOfDirectory(atPath: devices.path).first {
          $0 == (try? open(pair.a).folder.deviceID)?.rawValue
        })
      let segments = devices.appendingPathComponent(own)
      let first = try #require(
        try FileManager.default.contentsOfDirectory(atPath: segments.path).sorted().first)
      let moved = folder.appendingPathComponent("kept")
      try FileManager.default.moveItem(at: segments.appendingPathComponent(first), to: moved)
      #expect(try Simulation.sealedChanges(at: pair.a.path) == nil)
    }
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      #expect(try Simulation.sealedChanges(at: pair.a.path) != nil)
      // A changed zone file: the full sync runs.
      let zone = pair.cloud.appendingPathComponent("zone.json")
      try (try Data(contentsOf: zone) + Data(" ".utf8)).write(to: zone)
      #expect(try Simulation.sealedChanges(at: pair.a.path) == nil)
    }
  }

  /// An import into a mirror opened for a few records writes nothing (nor copies a photo) when
  /// the new segments name other records, and says which: the sync then opens the stores for
  /// those too.
  @Test func anImportIntoAFocusedMirrorNamesTheRecordsItNeeds() throws {
    try withTemporaryFolder { folder in
      let pair = try Pair(folder)
      let batteries = try open(pair.a).item("Batteries")
      let key = RecordKey(model: "item", id: batteries.id)
      _ = try open(pair.b).consume("Batteries")
      _ = try sync(pair.b)
      let store = pair.a.appendingPathComponent(MirrorStore.fileName)
      let before = try Data(contentsOf: store)
      let cloud = CloudFolder(root: pair.cloud.path)
      let blobs = BlobStore(deviceFolder: pair.a.path, fileSystem: POSIXFileSystem())
      func mirror(_ focus: Set<RecordKey>) throws -> MirrorStore {
        let opened = try MirrorStore.open(
          folder: pair.a.path, schemas: InventorySchemas.registry,
          lock: FolderLock(folder: pair.a.path), focus: focus)
        #expect(!opened.content.isComplete)
        return opened
      }
      let held = try cloud.importNew(into: try mirror([]), deviceBlobs: blobs, at: epoch)
      #expect(held.heldBack && held.recordsToLoad == [key] && held.segmentsRead == 0)
      #expect(try Data(contentsOf: store) == before)
      let read = try cloud.importNew(into: try mirror([key]), deviceBlobs: blobs, at: epoch)
      #expect(!read.heldBack && read.segmentsRead == 1 && read.versionsImported == 1)
      #expect(read.recordsMerged == [key])
    }
  }
}
