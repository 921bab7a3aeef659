import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

import struct CloudFolder.CloudFolder

private let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// A device's mirror for these tests.
private func openMirror(_ folder: URL, device: DeviceID = .make()) throws -> MirrorStore {
  try MirrorStore.open(
    folder: folder.path, schemas: InventorySchemas.registry,
    lock: FolderLock(folder: folder.path), create: (device, epoch, nil))
}

private func tube(_ quantity: Int64) -> Record {
  Item(
    id: RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!, name: "Koleston 7/1",
    quantity: quantity, createdAt: epoch
  ).record
}

/// What the transport does with version ids: segments carry them, their integrity covers the
/// parents, and segments written before ids included the parents still import.
@Suite struct VersionIdentityTransportTests {
  @Test func aChangedParentsListIsRejected() throws {
    try withTemporaryFolder { folder in
      let cloud = CloudFolder(root: folder.appendingPathComponent("cloud").path)
      try FileManager.default.createDirectory(
        atPath: cloud.root, withIntermediateDirectories: true)
      let a = try openMirror(folder.appendingPathComponent("a"))
      let blobs = BlobStore(deviceFolder: folder.appendingPathComponent("a").path)
      let root = try a.update { _, transaction in
        transaction.write(.record(tube(5)), parents: [], author: a.content.deviceID, at: epoch)
      }
      try cloud.export(from: a, deviceBlobs: blobs, at: epoch)
      try a.update { _, transaction in
        transaction.write(
          .record(tube(4)), parents: [root.id], author: a.content.deviceID, at: epoch)
      }
      let second = try #require(try cloud.export(from: a, deviceBlobs: blobs, at: epoch).segment)
      // Another parent, same id: today's format would not notice.
      let path = cloud.root + "/" + second
      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(text.contains(root.id.hex))
      try text.replacingOccurrences(of: root.id.hex, with: String(repeating: "ab", count: 32))
        .write(toFile: path, atomically: false, encoding: .utf8)

      let c = try openMirror(folder.appendingPathComponent("c"))
      let report = try cloud.importNew(
        into: c, deviceBlobs: BlobStore(deviceFolder: folder.appendingPathComponent("c").path),
        at: epoch)
      #expect(report.segmentsRead == 1)
      let rejection = try #require(report.rejected.first)
      #expect(rejection.segment == second)
      #expect(rejection.reason.contains("does not match its snapshot and parents"), "\(rejection)")
      #expect(c.content.side(for: root.key).leaves.map(\.id) == [root.id])
    }
  }

  /// A hand-made segment of `format` holding one version line.
  private func handMade(
    _ cloud: CloudFolder, zone: String, format: Int, line: JSONObject
  ) throws -> String {
    let device = DeviceID.make()
    let folder = cloud.root + "/devices/" + device.rawValue
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let header: JSONObject = [
      "segment": .object([
        "format": .string("stash.segment"), "version": .integer(Int64(format)),
        "zone": .string(zone), "device": .string(device.rawValue), "sequence": .integer(1),
        "count": .integer(1),
      ])
    ]
    let text = JSONWriter.string(.object(header)) + "\n" + JSONWriter.string(.object(line)) + "\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/000001.jsonl"))
    return "devices/\(device.rawValue)/000001.jsonl"
  }

  @Test(arguments: [1, 2])
  func aVersionNamingItselfIsRejected(format: Int) throws {
    try withTemporaryFolder { folder in
      let cloud = CloudFolder(root: folder.appendingPathComponent("cloud").path)
      try FileManager.default.createDirectory(
        atPath: cloud.root, withIntermediateDirectories: true)
      let c = try openMirror(folder.appendingPathComponent("c"))
      let blobs = BlobStore(deviceFolder: folder.appendingPathComponent("c").path)
      try cloud.importNew(into: c, deviceBlobs: blobs, at: epoch)  // creates and binds the zone
      let version = MirrorVersion(
        snapshot: .record(tube(5)), parents: [], generation: 1, author: .make(),
        authoredAt: epoch)
      var line = version.json
      let own = format == 1 ? version.hash.hex : version.id.hex
      line["parents"] = .array([.string(own)])
      if format == 1 { line["id"] = nil }
      let segment = try handMade(cloud, zone: c.content.zone!, format: format, line: line)
      let report = try cloud.importNew(into: c, deviceBlobs: blobs, at: epoch)
      #expect(report.segmentsRead == 0)
      #expect(report.rejected.map(\.segment) == [segment])
      #expect(report.rejected.first?.reason.contains("names itself") == true, "\(report)")
      #expect(c.content.versions.isEmpty)
    }
  }

  @Test func aFormat2VersionWithoutAnIdIsRejected() throws {
    try withTemporaryFolder { folder in
      let cloud = CloudFolder(root: folder.appendingPathComponent("cloud").path)
      try FileManager.default.createDirectory(
        atPath: cloud.root, withIntermediateDirectories: true)
      let c = try openMirror(folder.appendingPathComponent("c"))
      let blobs = BlobStore(deviceFolder: folder.appendingPathComponent("c").path)
      try cloud.importNew(into: c, deviceBlobs: blobs, at: epoch)
      var line = MirrorVersion(
        snapshot: .record(tube(5)), parents: [], generation: 1, author: .make(),
        authoredAt: epoch
      ).json
      line["id"] = nil
      _ = try handMade(cloud, zone: c.content.zone!, format: 2, line: line)
      let report = try cloud.importNew(into: c, deviceBlobs: blobs, at: epoch)
      #expect(report.rejected.first?.reason.contains("has no 'id'") == true, "\(report)")
      #expect(c.content.versions.isEmpty)
    }
  }

  @Test func segmentsOfFormat1StillImportAndTheFrozenClockCycleHasALeaf() throws {
    try withTemporaryFolder { folder in
      let cloudPath = folder.appendingPathComponent("cloud")
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/format-1-frozen-clock/cloud"), to: cloudPath)
      let cloud = CloudFolder(root: cloudPath.path)
      let c = try openMirror(folder.appendingPathComponent("c"))
      let report = try cloud.importNew(
        into: c, deviceBlobs: BlobStore(deviceFolder: folder.appendingPathComponent("c").path),
        at: epoch)
      #expect(report.rejected.isEmpty, "\(report.rejected)")
      #expect(report.segmentsRead == 3)
      let content = c.content
      #expect(content.versionCount == 2)
      let key = try #require(content.versions.keys.first)
      #expect(
        content.leafSnapshot(of: key)?.hex
          == "113c3ef54bed3283499bd1810014f00239da17f9d2903d34b3b3e6a00055be9b")
      #expect(content.checkInvariants() == [])
    }
  }
}
