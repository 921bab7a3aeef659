import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// The shared folder is written by other machines and sync tools: its files are read as
/// untrusted input, and nothing it holds makes a device write outside its own files.
@Suite struct UntrustedFolderTests {
  private let manager = FileManager.default

  @Test func aZoneFileThatIsAFolderIsNamedInTheMessage() throws {
    try withTemporaryFolder { folder in
      let device = try TestDevice(folder.appendingPathComponent("a"))
      let root = folder.appendingPathComponent("cloud")
      try manager.createDirectory(
        at: root.appendingPathComponent("zone.json"), withIntermediateDirectories: true)
      let cloud = CloudFolder(root: root.path)
      #expect {
        try cloud.importNew(into: device.mirror, deviceBlobs: device.blobs, at: sharedEpoch)
      } throws: { error in
        "\(error)".contains("zone.json") && !"\(error)".contains("fd ")
      }
    }
  }

  @Test func aZoneFileOfANewerFormatIsRefused() throws {
    try withTemporaryFolder { folder in
      let device = try TestDevice(folder.appendingPathComponent("a"))
      let root = folder.appendingPathComponent("cloud")
      let zone = RecordID.make().rawValue
      try put(
        Array(#"{"format":"stash.zone","version":3,"zone":"\#(zone)"}"#.utf8) + [10],
        at: root.path + "/zone.json")
      let before = try device.file()
      #expect {
        try CloudFolder(root: root.path).importNew(
          into: device.mirror, deviceBlobs: device.blobs, at: sharedEpoch)
      } throws: { error in
        "\(error)".contains("newer")
      }
      #expect(try device.file() == before, "the mirror is not bound to a zone it cannot read")
    }
  }

  @Test(arguments: ["devices/OWN", "blobs"])
  func aLinkInTheSharedFolderIsNeverWrittenThrough(_ linked: String) throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let outside = folder.appendingPathComponent("outside")
      try manager.createDirectory(at: outside, withIntermediateDirectories: true)
      let relative = linked.replacingOccurrences(of: "OWN", with: setUp.a.device.rawValue)
      if manager.fileExists(atPath: setUp.path(relative)) {
        try manager.removeItem(atPath: setUp.path(relative))
      }
      try manager.createSymbolicLink(
        atPath: setUp.path(relative), withDestinationPath: outside.path)
      let photo = try setUp.a.blobs.store(Array("a photo".utf8))
      try setUp.a.write(Item(name: "Pictured", photo: photo, createdAt: sharedEpoch).record)
      _ = try? setUp.cloud.export(from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(try manager.contentsOfDirectory(atPath: outside.path) == [])
    }
  }

  @Test func aLinkedSegmentIsNotReadThroughTheLink() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let writer = DeviceID.make()
      let outside = folder.appendingPathComponent("elsewhere.jsonl").path
      let item = remoteVersion(.record(rawItem(name: "From outside")))
      try put(segmentBytes(zone: setUp.zone, device: writer, versions: [item]), at: outside)
      let relative = "devices/\(writer.rawValue)/000001.jsonl"
      try manager.createDirectory(
        atPath: setUp.path("devices/\(writer.rawValue)"), withIntermediateDirectories: true)
      try manager.createSymbolicLink(atPath: setUp.path(relative), withDestinationPath: outside)
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(setUp.b.mirror.content.versions[item.key] == nil)
      #expect(report.rejected.contains { $0.segment == relative }, "\(report.rejected)")
    }
  }

  @Test func aLinkedDeviceFolderIsNotReadThroughTheLink() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let writer = DeviceID.make()
      let outside = folder.appendingPathComponent("outside-device")
      let item = remoteVersion(.record(rawItem(name: "From outside")))
      try put(
        segmentBytes(zone: setUp.zone, device: writer, versions: [item]),
        at: outside.path + "/000001.jsonl")
      try manager.createSymbolicLink(
        atPath: setUp.path("devices/\(writer.rawValue)"), withDestinationPath: outside.path)
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(setUp.b.mirror.content.versions[item.key] == nil)
      #expect(!report.rejected.isEmpty, "a link where a folder should be is reported")
    }
  }

  @Test func aFolderWhereASegmentShouldBeIsSkippedAndReported() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let writer = DeviceID.make()
      let relative = "devices/\(writer.rawValue)/000001.jsonl"
      try manager.createDirectory(atPath: setUp.path(relative), withIntermediateDirectories: true)
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      let rejection = report.rejected.first { $0.segment == relative }
      #expect(rejection?.reason.contains("not a regular file") == true, "\(report.rejected)")
    }
  }

  @Test func aSegmentInAnotherDevicesFolderThatNamesAnotherDeviceIsRejected() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let folderDevice = DeviceID.make()
      let item = remoteVersion(.record(rawItem(name: "Misfiled")))
      let relative = "devices/\(folderDevice.rawValue)/000001.jsonl"
      try put(
        segmentBytes(zone: setUp.zone, device: .make(), versions: [item]),
        at: setUp.path(relative))
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(report.rejected.contains { $0.segment == relative }, "\(report.rejected)")
      #expect(setUp.b.mirror.content.versions[item.key] == nil)
    }
  }
}
