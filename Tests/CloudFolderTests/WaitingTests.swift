import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A file the sync tool is still delivering is waiting, not damaged: it is read again later,
/// and it holds back only what needs it.
@Suite struct WaitingTests {
  /// Writes `bytes` as a segment of a new device, imports into B, and returns the report.
  private func importSegment(
    _ setUp: SharedSetUp, _ bytes: [UInt8], device: DeviceID
  ) throws -> (ImportReport, String) {
    let relative = "devices/\(device.rawValue)/000001.jsonl"
    try put(bytes, at: setUp.path(relative))
    let report = try setUp.cloud.importNew(
      into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
    return (report, relative)
  }

  @Test(arguments: ["no final newline", "fewer lines than announced", "only half a header"])
  func anIncompleteSegmentWaitsAndIsReadOnceComplete(_ how: String) throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let writer = DeviceID.make()
      let versions = [
        remoteVersion(.record(rawItem(name: "One"))), remoteVersion(.record(rawItem())),
      ]
      let whole = segmentBytes(zone: setUp.zone, device: writer, versions: versions)
      let partial: [UInt8]
      switch how {
      case "no final newline": partial = Array(whole.dropLast(10))
      case "fewer lines than announced":
        partial = segmentBytes(
          zone: setUp.zone, device: writer, versions: [versions[0]], count: 2)
      default: partial = Array(whole.prefix(30))
      }
      let before = try setUp.b.file()
      let (waiting, relative) = try importSegment(setUp, partial, device: writer)
      #expect(waiting.rejected.isEmpty, "incomplete is not damaged: \(waiting.rejected)")
      #expect(waiting.segmentsRead == 0)
      #expect(try setUp.b.file() == before, "nothing is applied from a segment still arriving")
      try put(whole, at: setUp.path(relative))
      let complete = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(complete.segmentsRead == 1 && complete.versionsImported == 2)
    }
  }

  @Test func aPhotoShorterThanItsSizeIsStillArriving() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let bytes = Array(repeating: UInt8(9), count: 50_000)
      let photo = BlobRef(of: bytes)
      let writer = DeviceID.make()
      let item = remoteVersion(.record(rawItem(photo: photo)))
      try put(Array(bytes.prefix(20_000)), at: setUp.cloud.blobs.path(for: photo.digest))
      let (waiting, _) = try importSegment(
        setUp, segmentBytes(zone: setUp.zone, device: writer, versions: [item]), device: writer)
      #expect(waiting.rejected.isEmpty, "a photo still arriving is not damaged")
      #expect(setUp.b.mirror.content.versions[item.key] == nil)
      try put(bytes, at: setUp.cloud.blobs.path(for: photo.digest))
      let arrived = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(arrived.segmentsRead == 1 && arrived.blobsCopied == 1)
      #expect(try setUp.b.blobs.read(photo) == bytes)
    }
  }

  @Test func aSegmentWaitingForAPhotoHoldsBackOnlyTheRecordThatNeedsIt() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let bytes = Array(repeating: UInt8(3), count: 4096)
      let photo = BlobRef(of: bytes)
      let writer = DeviceID.make()
      let withPhoto = remoteVersion(.record(rawItem(name: "With photo", photo: photo)))
      let unrelated = remoteVersion(.record(rawItem(name: "Unrelated")))
      let (first, relative) = try importSegment(
        setUp, segmentBytes(zone: setUp.zone, device: writer, versions: [withPhoto, unrelated]),
        device: writer)
      var content = setUp.b.mirror.content
      #expect(content.versions[unrelated.key] != nil, "the unrelated change is merged")
      #expect(content.versions[withPhoto.key] == nil, "the record waits for its photo")
      #expect(!content.readSegments.contains(relative), "the segment is read again later")
      #expect(first.rejected.isEmpty, "\(first.rejected)")
      // Waiting again changes nothing, byte for byte.
      let before = try setUp.b.file()
      _ = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(try setUp.b.file() == before)
      try put(bytes, at: setUp.cloud.blobs.path(for: photo.digest))
      _ = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      content = setUp.b.mirror.content
      #expect(content.versions[withPhoto.key] != nil)
      #expect(content.readSegments.contains(relative))
      #expect(content.checkInvariants() == [])
    }
  }

  @Test func aCompleteButWrongPhotoStaysRejected() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let bytes = Array(repeating: UInt8(5), count: 1000)
      let photo = BlobRef(of: bytes)
      let writer = DeviceID.make()
      try put(
        Array(repeating: UInt8(6), count: 1000), at: setUp.cloud.blobs.path(for: photo.digest))
      let item = remoteVersion(.record(rawItem(photo: photo)))
      let (report, relative) = try importSegment(
        setUp, segmentBytes(zone: setUp.zone, device: writer, versions: [item]), device: writer)
      let rejection = report.rejected.first { $0.segment == relative }
      #expect(rejection?.reason.contains("damaged") == true, "\(report.rejected)")
      #expect(setUp.b.mirror.content.versions[item.key] == nil)
    }
  }
}
