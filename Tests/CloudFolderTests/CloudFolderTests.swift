import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

private let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// A device folder's mirror and blobs, as the transport sees them.
private struct Side {
  let folder: URL
  let device: DeviceID
  let mirror: MirrorStore
  var blobs: BlobStore { BlobStore(deviceFolder: folder.path) }

  init(_ folder: URL) throws {
    self.folder = folder
    self.device = .make()
    mirror = try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path),
      create: (device, epoch, nil))
  }

  @discardableResult
  func write(_ record: Record, over parents: Set<VersionID> = []) throws -> MirrorVersion {
    try mirror.update { _, transaction in
      transaction.write(.record(record), parents: parents, author: device, at: epoch)
    }
  }

  func file() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: mirror.path)) }
}

private func item(_ name: String, photo: BlobRef? = nil) -> Record {
  Item(name: name, quantity: 5, photo: photo, createdAt: epoch).record
}

@Suite struct CloudFolderTests {
  /// Two devices and a shared folder.
  private func setUp(_ folder: URL) throws -> (Side, Side, CloudFolder) {
    let cloud = folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    return (
      try Side(folder.appendingPathComponent("a")), try Side(folder.appendingPathComponent("b")),
      CloudFolder(root: cloud.path)
    )
  }

  @Test func versionsTravelThroughSegmentsAndARepeatedImportChangesNothing() throws {
    try withTemporaryFolder { folder in
      let (a, b, cloud) = try setUp(folder)
      let version = try a.write(item("Koleston"))
      var events = [MirrorEvent]()
      let exported = try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch) {
        events.append($0)
      }
      #expect(exported.versions == 1 && exported.segment?.hasSuffix("/000001.jsonl") == true)
      #expect(a.mirror.content.pending.isEmpty)
      #expect(events.map(\.kind) == [.export, .export] && events.last?.outcome == .success)
      events = []
      let imported = try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: epoch) {
        events.append($0)
      }
      #expect(imported.versionsImported == 1 && imported.rejected.isEmpty)
      #expect(
        events.last == MirrorEvent(kind: .import, phase: .finished, storeID: b.mirror.storeID))
      #expect(b.mirror.content.side(for: version.key).winner?.hash == version.hash)
      #expect(b.mirror.content.pending.isEmpty, "imported versions are not exported again")
      #expect(b.mirror.content.zone == a.mirror.content.zone)
      let before = try b.file()
      #expect(
        try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: epoch).segmentsRead == 0)
      #expect(try b.file() == before)
      #expect(try cloud.export(from: b.mirror, deviceBlobs: b.blobs, at: epoch).versions == 0)
    }
  }

  /// A first sync of a large inventory: the mirror records each segment's versions as
  /// exported in one line, which must stay under a line's limit (1 MiB), so a segment holds at
  /// most `CloudLimits.versionsPerSegment` versions. (With 9,000 in one segment the line was
  /// 1.2 MB, and the export of a 100,000-item inventory failed every time.)
  @Test func aLargeFirstExportIsSplitSoThatEverySegmentIsMarkedExported() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let count = 9_000
      try setUp.a.mirror.update { _, transaction in
        for number in 0..<count {
          let item = Item(name: "Tube \(number)", quantity: 1, createdAt: sharedEpoch)
          transaction.write(
            .record(item.record), parents: [], author: setUp.a.device, at: sharedEpoch)
        }
      }
      let report = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(report.versions == count)
      #expect(
        report.segments.count == (count + CloudLimits.versionsPerSegment - 1)
          / CloudLimits.versionsPerSegment)
      #expect(setUp.a.mirror.content.pending.isEmpty, "every version is marked exported")
      let imported = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(imported.versionsImported == count)
    }
  }

  @Test func segmentsAreImmutableAndNumberedPerDevice() throws {
    try withTemporaryFolder { folder in
      let (a, _, cloud) = try setUp(folder)
      let first = try a.write(item("One"))
      try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch)
      try a.write(item("One again"), over: [first.id])
      let second = try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch)
      #expect(second.segment == "devices/\(a.device.rawValue)/000002.jsonl")
      let names = try FileManager.default.contentsOfDirectory(
        atPath: cloud.root + "/devices/" + a.device.rawValue)
      #expect(names.sorted() == ["000001.jsonl", "000002.jsonl"], "no temporary files left")
    }
  }

  @Test func temporaryNamesAreIgnoredAndConflictedCopiesReadHarmlessly() throws {
    try withTemporaryFolder { folder in
      let (a, b, cloud) = try setUp(folder)
      let version = try a.write(item("Koleston"))
      let segment = try #require(
        try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch).segment)
      let devicePath = cloud.root + "/devices/" + a.device.rawValue
      let bytes = try Data(contentsOf: URL(fileURLWithPath: cloud.root + "/" + segment))
      for name in [
        "000001 (conflicted copy 2026-11-29).jsonl", "000001.sync-conflict-20261129-ABCDEF.jsonl",
      ] {
        try bytes.write(to: URL(fileURLWithPath: devicePath + "/" + name))
      }
      for name in [
        ".000009.jsonl.tmp", "000009.jsonl.tmp", "~000009.jsonl", ".syncthing.000009.jsonl",
      ] {
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: devicePath + "/" + name))
      }
      let report = try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: epoch)
      #expect(report.rejected.isEmpty, "\(report.rejected)")
      #expect(report.segmentsRead == 3 && report.versionsImported == 1)
      #expect(b.mirror.content.versions[version.key]?.count == 1)
      #expect(b.mirror.content.checkInvariants() == [])
    }
  }

  @Test func aFolderOfAnotherZoneIsRefusedAsAnAccountChange() throws {
    try withTemporaryFolder { folder in
      let (a, _, cloud) = try setUp(folder)
      try a.write(item("Koleston"))
      try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch)
      let other = folder.appendingPathComponent("other-account")
      try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
      let elsewhere = CloudFolder(root: other.path)
      let before = try a.file()
      // An empty folder is not silently adopted either: the mirror already belongs to a zone.
      #expect(throws: CloudError.noZone(other.path)) {
        try elsewhere.importNew(into: a.mirror, deviceBlobs: a.blobs, at: epoch)
      }
      // Another account's device made that folder its zone.
      let stranger = try Side(folder.appendingPathComponent("stranger"))
      try stranger.write(item("Someone else's"))
      try elsewhere.export(from: stranger.mirror, deviceBlobs: stranger.blobs, at: epoch)
      var events = [MirrorEvent]()
      #expect {
        try elsewhere.importNew(into: a.mirror, deviceBlobs: a.blobs, at: epoch) {
          events.append($0)
        }
      } throws: { error in
        guard case CloudError.otherZone = error else { return false }
        return "\(error)".contains("nothing was merged")
      }
      #expect(events.last?.isFinishedSuccessfulImport == false)
      #expect(try a.file() == before)
    }
  }

  @Test func anUnreachableFolderFailsTheImportAndChangesNothing() throws {
    try withTemporaryFolder { folder in
      let (a, _, _) = try setUp(folder)
      try a.write(item("Koleston"))
      let before = try a.file()
      let gone = CloudFolder(root: folder.appendingPathComponent("unmounted").path)
      var events = [MirrorEvent]()
      #expect(throws: CloudError.self) {
        try gone.importNew(into: a.mirror, deviceBlobs: a.blobs, at: epoch) { events.append($0) }
      }
      #expect(throws: CloudError.self) {
        try gone.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch)
      }
      guard case .failure? = events.last?.outcome else {
        Issue.record("the import must finish with a failure")
        return
      }
      #expect(try a.file() == before)
    }
  }

  /// Exports one version from A, tampers with the segment (or its photo), and checks B rejects
  /// it, reports why, and leaves its mirror byte for byte as it was.
  private func expectRejected(
    reason: String,
    tamper: (_ segmentPath: String, _ cloud: CloudFolder, _ photo: BlobRef) throws -> Void
  ) throws {
    try withTemporaryFolder { folder in
      let (a, _, cloud) = try setUp(folder)
      let photo = try a.blobs.store(Array("the photo".utf8))
      try a.write(item("Koleston", photo: photo))
      let segment = try #require(
        try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch).segment)
      try tamper(cloud.root + "/" + segment, cloud, photo)
      // Another device of the zone that has not read the segment yet.
      let c = try Side(folder.appendingPathComponent("c"))
      try c.mirror.update { _, transaction in transaction.bindZone(a.mirror.content.zone!) }
      let before = try c.file()
      let report = try cloud.importNew(into: c.mirror, deviceBlobs: c.blobs, at: epoch)
      #expect(report.segmentsRead == 0)
      let rejection = try #require(report.rejected.first)
      #expect(rejection.segment == segment)
      #expect(rejection.reason.contains(reason), "\(rejection.reason)")
      #expect(try c.file() == before, "the mirror is untouched")
      #expect(c.mirror.content.readSegments.isEmpty, "it will be read again later")
    }
  }

  @Test func aVersionWhoseHashDoesNotMatchItsPayloadIsRejected() throws {
    try expectRejected(reason: "does not match its content") { path, _, _ in
      let text = try String(contentsOfFile: path, encoding: .utf8)
      try text.replacingOccurrences(of: "\"quantity\":5", with: "\"quantity\":50")
        .write(toFile: path, atomically: true, encoding: .utf8)
    }
  }

  @Test func aGarbageSegmentIsRejected() throws {
    try expectRejected(reason: "header") { path, _, _ in
      try Data("\u{0}\u{1}not json at all\n".utf8).write(to: URL(fileURLWithPath: path))
    }
  }

  @Test func aPhotoWhoseBytesDoNotMatchItsNameIsRejected() throws {
    try expectRejected(reason: "damaged") { _, cloud, photo in
      try Data("another photo".utf8).write(
        to: URL(fileURLWithPath: cloud.blobs.path(for: photo.digest)))
    }
  }

  @Test func aSegmentWaitsForItsPhotoAndIsReadWhenItArrives() throws {
    try withTemporaryFolder { folder in
      let (a, b, cloud) = try setUp(folder)
      let bytes = Array(repeating: UInt8(7), count: 100_000)
      let photo = try a.blobs.store(bytes)
      let version = try a.write(item("Koleston", photo: photo))
      try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: epoch)
      let shared = cloud.blobs.path(for: photo.digest)
      try FileManager.default.moveItem(atPath: shared, toPath: shared + ".later")
      let waiting = try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: epoch)
      #expect(waiting.waiting.first?.reason.contains("has not arrived yet") == true)
      #expect(waiting.rejected.isEmpty, "a photo still arriving is not damaged")
      try FileManager.default.moveItem(atPath: shared + ".later", toPath: shared)
      let arrived = try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: epoch)
      #expect(arrived.segmentsRead == 1 && arrived.blobsCopied == 1)
      #expect(try b.blobs.read(photo) == bytes)
      #expect(b.mirror.content.side(for: version.key).winner?.hash == version.hash)
    }
  }
}
