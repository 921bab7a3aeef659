import Foundation
import JSONLines
import StashFiles
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// The sync seal: a sync with nothing new is skipped only when both stores and the shared
/// folder are exactly as a sync that left nothing to do left them; anything else runs the full
/// sync, whose result is then what it always was.
@Suite struct SyncSealTests {
  /// A synced device `a` (two items) whose last sync wrote the seal, and its shared folder.
  struct Setup {
    let folder: URL
    let cloud: URL
    let home: URL

    init(_ folder: URL) throws {
      self.folder = folder
      cloud = folder.appendingPathComponent("cloud")
      home = folder.appendingPathComponent("a")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      try openDevice(home).folder.enableSync(cloud: cloud.path)
      let a = try openDevice(home)
      try a.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      try a.addItem(Item(name: "Batteries", quantity: 12, createdAt: epoch))
      _ = try a.folder.sync()
    }

    /// The sync state, which holds the seal.
    var seal: String { home.path + "/" + SyncState.fileName }

    /// The report of the sync with nothing new the sync state allows now (as a sync takes it,
    /// under the folder's lock), made comparable with a full sync's; `nil` when it allows none.
    func shortcut() throws -> SyncRunReport? {
      try Self.shortcut(at: home.path)
    }

    /// ``shortcut()`` for the folder at `home`.
    static func shortcut(at home: String) throws -> SyncRunReport? {
      guard let seal = SyncSeal.read(home: home, fileSystem: POSIXFileSystem()) else {
        return nil
      }
      let lock = FolderLock(folder: home)
      let proof = try lock.acquire()
      defer { lock.release(proof) }
      guard seal.matchesEverything(home: home, fileSystem: POSIXFileSystem()) else { return nil }
      var report = SyncFolder.skip(home: home, now: epoch, fileSystem: POSIXFileSystem())
      report.choice = .full
      return report
    }

    /// A full sync of a freshly opened `a`, whatever the sync state says.
    func fullSync() throws -> SyncRunReport { try openDevice(home).folder.syncFully() }

    /// A second device synced through the same shared folder (it exports nothing new).
    func secondDevice(_ name: String = "b") throws -> URL {
      let home = folder.appendingPathComponent(name)
      try openDevice(home).folder.enableSync(cloud: cloud.path)
      _ = try openDevice(home).folder.sync()
      return home
    }
  }

  /// Replaces the last `from` in the file with `to` (of the same length): a hand edit that
  /// keeps the file's size.
  func handEdit(_ path: String, _ from: String, _ to: String) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let needle = Array(from.utf8)
    let start = try #require(
      (0...(bytes.count - needle.count)).last {
        bytes[$0..<$0 + needle.count].elementsEqual(needle)
      })
    bytes.replaceSubrange(start..<start + needle.count, with: Array(to.utf8))
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  @Test func aSyncWithNothingNewIsSkippedAndReportsWhatAFullSyncReports() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      #expect(FileManager.default.fileExists(atPath: setup.seal))
      let state = URL(fileURLWithPath: setup.seal)
      let stateBefore = try Data(contentsOf: state)
      let before = FolderSnapshot(of: setup.folder.path)
      let skipped = try #require(try setup.shortcut())
      // It writes only the sync state (this run's times, outside the stores).
      try stateBefore.write(to: state)
      #expect(FolderSnapshot(of: setup.folder.path) == before, "the shortcut writes nothing else")
      try FileManager.default.removeItem(atPath: setup.seal)
      let full = try setup.fullSync()
      #expect(skipped == full)
      #expect(try setup.shortcut() == full, "the full sync wrote the seal again")
    }
  }

  @Test func aLocalEditIsNotSkipped() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      _ = try openDevice(setup.home).consume("Koleston")
      #expect(try setup.shortcut() == nil)
      let full = try setup.fullSync()
      #expect(full.copiedToMirror == 1 && full.versionsExported == 1)
      #expect(try setup.shortcut() != nil)
    }
  }

  @Test func aNewSegmentFromAnotherDeviceIsNotSkipped() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      let b = try openDevice(try setup.secondDevice())
      _ = try b.consume("Batteries", count: 2)
      _ = try b.folder.sync()
      #expect(try setup.shortcut() == nil)
      let full = try setup.fullSync()
      #expect(full.versionsImported == 1 && full.appliedLocally == 1)
      #expect(try openDevice(setup.home).item("Batteries").quantity == 10)
    }
  }

  @Test func aHandEditOfEitherStoreThatKeepsItsSizeIsNotSkipped() throws {
    for store in ["default.store", "cloud.store"] {
      try withTemporaryFolder { folder in
        let setup = try Setup(folder)
        try handEdit(setup.home.path + "/" + store, "Koleston", "Kolestom")
        #expect(try setup.shortcut() == nil, "\(store)")
      }
    }
  }

  @Test func aStaleOrMissingSealIsNotTrusted() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      // Damaged, truncated, empty, of another version or another folder's: the one suite of
      // every derived file, DerivedFileTests. Missing, then stale:
      let sealed = try Data(contentsOf: URL(fileURLWithPath: setup.seal))
      try FileManager.default.removeItem(atPath: setup.seal)
      #expect(try setup.shortcut() == nil)
      // Stale: written before a later edit, put back after it.
      try sealed.write(to: URL(fileURLWithPath: setup.seal))
      #expect(try setup.shortcut() != nil)
      _ = try openDevice(setup.home).consume("Koleston")
      _ = try setup.fullSync()
      try sealed.write(to: URL(fileURLWithPath: setup.seal))
      #expect(try setup.shortcut() == nil)
    }
  }

  @Test func aChangeInTheSharedFolderIsNotSkipped() throws {
    let changes: [(String, (URL) throws -> Void)] = [
      (
        "a partial segment",
        { cloud in
          let device = try #require(
            try FileManager.default.contentsOfDirectory(atPath: cloud.path + "/devices").first)
          try write("{", to: cloud.path + "/devices/\(device)/.tmp-000009.jsonl")
        }
      ),
      (
        "a removed segment",
        { cloud in
          let device = try #require(
            try FileManager.default.contentsOfDirectory(atPath: cloud.path + "/devices").first)
          try FileManager.default.removeItem(atPath: cloud.path + "/devices/\(device)/000001.jsonl")
        }
      ),
      (
        "a new device folder",
        { cloud in
          try FileManager.default.createDirectory(
            atPath: cloud.path + "/devices/" + RecordID.make().rawValue,
            withIntermediateDirectories: true)
        }
      ),
      (
        "a changed zone",
        { cloud in
          let zone = cloud.path + "/zone.json"
          let text = try String(contentsOfFile: zone, encoding: .utf8)
          try write(text + " ", to: zone)
        }
      ),
    ]
    for (name, change) in changes {
      try withTemporaryFolder { folder in
        let setup = try Setup(folder)
        try change(setup.cloud)
        #expect(try setup.shortcut() == nil, "\(name)")
      }
    }
  }

  @Test func noSealIsWrittenWhileSomethingIsWaiting() throws {
    try withTemporaryFolder { folder in
      let setup = try Setup(folder)
      let device = DeviceID(RecordID.make().rawValue)!
      let other = setup.cloud.path + "/devices/" + device.rawValue
      try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
      let zoneText = try String(contentsOfFile: setup.cloud.path + "/zone.json", encoding: .utf8)
      let zone = try #require(zoneText.split(separator: "\"").dropLast().last).description
      // One version of the two it announces: the sync tool is still delivering it.
      let version = HostileSegment.Version(.record(HostileSegment.item()), author: device)
      let bytes = HostileSegment.bytes(zone: zone, device: device, versions: [version], count: 2)
      try Data(bytes).write(to: URL(fileURLWithPath: other + "/000001.jsonl"))
      try FileManager.default.removeItem(atPath: setup.seal)
      let full = try setup.fullSync()
      #expect(!full.waiting.isEmpty)
      #expect(SyncSeal.read(home: setup.home.path, fileSystem: POSIXFileSystem()) == nil)
      #expect(try setup.shortcut() == nil)
    }
  }
}
