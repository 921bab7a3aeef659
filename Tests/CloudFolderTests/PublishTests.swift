import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashFiles
import StashModel
import StashTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nothing in the shared folder is ever replaced: files are written under unique temporary
/// names and published by a step that fails rather than overwrites.
@Suite struct PublishTests {
  @Test func anExportNeverReplacesAFileThatAppearsAtItsName() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let setUp = try SharedSetUp(folder, fileSystem: files)
      let foreign = Array("another writer's segment\n".utf8)
      let planted = Mutex<String?>(nil)
      files.beforePublish { destination in
        guard destination.hasSuffix(".jsonl"), planted.withLock({ $0 == nil }) else { return }
        planted.withLock { $0 = destination }
        try? Data(foreign).write(to: URL(fileURLWithPath: destination))
      }
      let version = try setUp.a.write(Item(name: "Second", createdAt: sharedEpoch).record)
      _ = try? setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      let path = try #require(planted.withLock { $0 })
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: path)) == Data(foreign),
        "the other writer's file was replaced")
      #expect(
        setUp.a.mirror.content.pending.contains(version.ref),
        "a version whose segment was not published stays pending")
    }
  }

  @Test func anExportLeavesOtherWritersTemporaryFilesAlone() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let own = setUp.path("devices/\(setUp.a.device.rawValue)")
      let theirs = own + "/.000002.jsonl.tmp"
      try put(Array("half of someone's segment".utf8), at: theirs)
      try setUp.a.write(Item(name: "Second", createdAt: sharedEpoch).record)
      _ = try? setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(FileManager.default.fileExists(atPath: theirs))
    }
  }

  @Test func twoDevicesCreatingTheZoneAtOnceBothKeepTheFirstOne() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let root = folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let device = try TestDevice(folder.appendingPathComponent("a"))
      let firstZone = RecordID.make().rawValue
      files.beforePublish { destination in
        guard destination.hasSuffix("/zone.json"),
          !FileManager.default.fileExists(atPath: destination)
        else { return }
        // Another device's zone.json lands between the check and the publish.
        let bytes = Array(#"{"format":"stash.zone","version":1,"zone":"\#(firstZone)"}"#.utf8)
        try? Data(bytes + [10]).write(to: URL(fileURLWithPath: destination))
      }
      try device.write(Item(name: "Mine", createdAt: sharedEpoch).record)
      try CloudFolder(root: root.path, fileSystem: files).export(
        from: device.mirror, deviceBlobs: device.blobs, at: sharedEpoch)
      #expect(device.mirror.content.zone == firstZone)
      let text = try String(contentsOfFile: root.path + "/zone.json", encoding: .utf8)
      #expect(text.contains(firstZone), "the first zone.json was replaced")
    }
  }

  @Test func aSegmentThisDeviceBeganWritingBeforeACrashIsItsOwnAndLeftAlone() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let relative = "devices/\(setUp.a.device.rawValue)/000002.jsonl"
      // Recorded, then the crash came while the file was written in place (no hard links).
      try setUp.a.mirror.update { _, transaction in
        transaction.markExporting(segment: relative, export: RecordID.make().rawValue)
      }
      let partial = Array(#"{"segment":{"format":"stash.segment","vers"#.utf8)
      try put(partial, at: setUp.path(relative))
      try setUp.a.write(Item(name: "Second", createdAt: sharedEpoch).record)
      let report = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(report.stopped == nil, "its own leftover is not another copy's file")
      #expect(report.segment == "devices/\(setUp.a.device.rawValue)/000003.jsonl")
      #expect(try Data(contentsOf: URL(fileURLWithPath: setUp.path(relative))) == Data(partial))
    }
  }

  @Test(arguments: [EPERM, ENOTSUP])
  func withoutHardLinksFilesArePublishedByExclusiveCreation(_ code: Int32) throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      files.failLinks(with: code)
      let setUp = try SharedSetUp(folder, fileSystem: files)
      let photo = try setUp.a.blobs.store(Array("a photo".utf8))
      let item = try setUp.a.write(
        Item(name: "Pictured", photo: photo, createdAt: sharedEpoch).record)
      let exported = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(exported.versions == 1 && exported.blobsCopied == 1)
      let imported = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(imported.rejected.isEmpty, "\(imported.rejected)")
      #expect(setUp.b.mirror.content.side(for: item.key).winner?.hash == item.hash)
      for sub in ["", "/devices/\(setUp.a.device.rawValue)", "/blobs"] {
        let names = try FileManager.default.contentsOfDirectory(atPath: setUp.cloud.root + sub)
        #expect(!names.contains { $0.hasPrefix(".") }, "temporary files left in '\(sub)'")
      }
    }
  }
}
