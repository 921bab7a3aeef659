import Foundation
import JSONLines
import Stash
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// One device's sync is one critical section: import, pass and export all run under the
/// device folder's lock, so a second sync of the same folder cannot interleave with it.
@Suite struct SyncCriticalSectionTests {
  @Test func everyReadAndWriteOfTheSharedFolderHappensUnderTheDeviceLock() throws {
    try withTemporaryFolder { folder in
      let cloud = folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let files = ScriptedFileSystem()
      let home = folder.appendingPathComponent("home")
      try openDevice(home, fileSystem: files).folder.enableSync(cloud: cloud.path)
      let device = try openDevice(home, fileSystem: files)
      try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      let unlocked = Mutex<[String]>([])
      let lock = device.folder.lock
      let watch: @Sendable (String) -> Void = { path in
        if path.hasPrefix(cloud.path), !lock.isHeld { unlocked.withLock { $0.append(path) } }
      }
      files.beforeListing(watch)
      files.beforePublish(watch)
      let report = try device.folder.sync()
      #expect(report.versionsExported == 1)
      #expect(unlocked.withLock { $0 } == [], "touched the shared folder without the lock")
    }
  }
}

/// A sync whose reconcile pass fails after the import reached the mirror says exactly that,
/// and still counts as having done something.
@Suite struct SyncPassFailureTests {
  @Test func aFailedPassAfterASuccessfulImportIsReportedTruthfully() throws {
    try withTemporaryFolder { folder in
      let cloud = folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let aHome = folder.appendingPathComponent("a")
      try openDevice(aHome).folder.enableSync(cloud: cloud.path)
      let a = try openDevice(aHome)
      try a.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      _ = try a.folder.sync()

      let files = ScriptedFileSystem()
      let bHome = folder.appendingPathComponent("b")
      try openDevice(bHome, fileSystem: files).folder.enableSync(cloud: cloud.path)
      let b = try openDevice(bHome, fileSystem: files)
      _ = b.folder.mirror  // the mirror opens before the fault is armed
      files.inject(.writeTo(suffix: "/default.store"))
      let report = try b.folder.sync()
      #expect(report.versionsImported == 1)
      let failure = try #require(report.passFailure)
      #expect(failure.contains("the local store was not changed"), "\(failure)")
      #expect(!failure.contains("nothing was changed"))
      #expect(b.items().isEmpty)
      files.clearFaults()
      _ = try b.folder.sync()
      #expect(b.items().map(\.name) == ["Koleston"], "the next sync applies it")
    }
  }
}
