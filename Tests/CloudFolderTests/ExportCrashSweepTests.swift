import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A crash at every moment of an export, through the public `CloudFolder.export`: the photos,
/// the segment's temporary file and its publishing, and the mirror's record of it. Another
/// device then finds all of the segment or none of it, the exporting mirror opens at a commit,
/// and exporting again delivers everything.
@Suite struct ExportCrashSweepTests {
  private static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
  private static let device = DeviceID("00000000-0000-4000-8000-0000000000a1")!

  private func mirror(_ folder: URL, _ files: any FileSystem, device: DeviceID = device) throws
    -> MirrorStore
  {
    try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path, fileSystem: files),
      create: (device, Self.epoch, StoreID("00000000-0000-4000-8000-00000000000f")!),
      fileSystem: files)
  }

  private func record(_ name: String, _ number: Int, photo: BlobRef? = nil) -> Record {
    Item(
      id: RecordID("00000000-0000-4000-8000-\(String(format: "%012d", number))")!, name: name,
      quantity: 3, photo: photo, createdAt: Self.epoch
    ).record
  }

  /// A device `a` that exported once (so the zone exists), then wrote a version with a
  /// photo; and the shared folder.
  private func template(_ root: URL) throws {
    let cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    let a = root.appendingPathComponent("a")
    let store = try mirror(a, POSIXFileSystem())
    let blobs = BlobStore(deviceFolder: a.path)
    try store.update { _, transaction in
      transaction.write(
        .record(record("first", 1)), parents: [], author: Self.device, at: Self.epoch)
    }
    try CloudFolder(root: cloud.path).export(from: store, deviceBlobs: blobs, at: Self.epoch)
    var random = SeededRandom(seed: 9)
    let photo = try blobs.store(random.bytes(400))
    try store.update { _, transaction in
      transaction.write(
        .record(record("second", 2, photo: photo)), parents: [], author: Self.device,
        at: Self.epoch)
    }
  }

  private func export(_ root: URL, _ files: any FileSystem) throws {
    let a = root.appendingPathComponent("a")
    let store = try mirror(a, files)
    try CloudFolder(root: root.appendingPathComponent("cloud").path, fileSystem: files).export(
      from: store, deviceBlobs: BlobStore(deviceFolder: a.path, fileSystem: files), at: Self.epoch)
  }

  /// The versions a new device `b` imports from the shared folder, and whether any segment
  /// was rejected.
  private func importOnB(_ root: URL) throws -> (versions: Int, rejected: [String]) {
    let b = root.appendingPathComponent("b")
    let store = try mirror(
      b, POSIXFileSystem(), device: DeviceID("00000000-0000-4000-8000-0000000000b2")!)
    let report = try CloudFolder(root: root.appendingPathComponent("cloud").path).importNew(
      into: store, deviceBlobs: BlobStore(deviceFolder: b.path), at: Self.epoch)
    return (store.content.versionCount, report.rejected.map(\.description))
  }

  /// Runs `body` for each index, two at a time (the machine has two cores).
  private func forEach(
    _ indices: Range<Int>, _ body: @escaping @Sendable (Int) throws -> Void
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var next = indices.lowerBound
      func start() {
        guard next < indices.upperBound else { return }
        let index = next
        next += 1
        group.addTask { try body(index) }
      }
      start()
      start()
      while try await group.next() != nil { start() }
    }
  }

  @Test func aCrashAnywhereInAnExportPublishesAllOfTheSegmentOrNone() async throws {
    try await withTemporaryFolderAsync(inMemory: true) { folder in
      let template = folder.appendingPathComponent("template")
      try self.template(template)
      let reference = folder.appendingPathComponent("reference")
      try copyFolder(template, to: reference)
      let files = ScriptedFileSystem()
      files.clearLog()
      try export(reference, files)
      let calls = files.calls
      #expect(try importOnB(reference).versions == 2)
      // Photos have a sweep of their own (BlobCrashSweepTests): here every tenth byte.
      let points = CrashSweep.points(of: calls, seed: 13, garbledEvery: 5) {
        $0.path.contains("/blobs/")
      }
      let published = LockedBox(0)
      try await forEach(points.indices) { index in
        let point = points[index]
        let trial = folder.appendingPathComponent("trial-\(index)")
        defer { try? FileManager.default.removeItem(at: trial) }
        try copyFolder(template, to: trial)
        let files = ScriptedFileSystem()
        files.crash(atCall: point.call, point.crash)
        try? export(trial, files)
        #expect(files.hasCrashed, "\(point)")
        // The exporting mirror opens, with the version pending or exported.
        let a = try mirror(trial.appendingPathComponent("a"), POSIXFileSystem())
        #expect([0, 1].contains(a.content.pending.count), "\(point)")
        let (versions, rejected) = try importOnB(trial)
        #expect(rejected.isEmpty, "\(point): \(rejected)")
        #expect(versions == 1 || versions == 2, "\(point): \(versions) versions arrived")
        if versions == 2 { published.withLock { $0 += 1 } }
        // Exporting again (what the next sync does) delivers everything, photo included
        // (checked at every eighth crash, and at each crash that is not inside a write).
        guard index % 8 == 0 || point.crash == .before else { return }
        try export(trial, POSIXFileSystem())
        let again = try importOnB(trial)
        #expect(again.versions == 2 && again.rejected.isEmpty, "\(point): \(again)")
      }
      print(
        "ExportCrashSweepTests: \(points.count) crashes over \(calls.count) calls, the segment "
          + "published in \(published.withLock { $0 })")
    }
  }
}
