import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Segments of another zone in the shared folder (a zone race): reported on every import,
/// never merged, never marked read and never called damaged, until this device knows every
/// version in them; a `zone.json` the sync tool swapped or lost is not an account change.
@Suite struct OtherZoneTests {
  /// A segment of a zone nobody here syncs, by a device named "phone", with one new item.
  private func dropOtherZone(
    _ setUp: SharedSetUp, zone: String = RecordID.make().rawValue,
    versions: [MirrorVersion]? = nil
  ) throws -> (path: String, versions: [MirrorVersion]) {
    let writer = DeviceID.make()
    let versions = versions ?? [remoteVersion(.record(rawItem()), author: writer)]
    var bytes = segmentBytes(zone: zone, device: writer, versions: versions)
    // Name the writer in the header, as a real device does.
    let header = String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self)
      .replacingOccurrences(of: "}}", with: #","name":"phone","written":1764441600}}"#)
    bytes = Array(header.utf8) + bytes.drop { $0 != 10 }
    let path = "devices/\(writer.rawValue)/000001.jsonl"
    try put(bytes, at: setUp.path(path))
    return (path, versions)
  }

  @Test func aSegmentOfAnotherZoneIsReportedOnEveryImportAndNeverMerged() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let (path, versions) = try dropOtherZone(setUp)
      for _ in 0..<3 {
        let report = try setUp.cloud.importNew(
          into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
        #expect(report.rejected.isEmpty, "never called damaged: \(report.rejected)")
        let sighting = try #require(report.otherZones.first, "\(report)")
        #expect(sighting.segments == [path] && sighting.hasLiveSegments)
        #expect(sighting.writers.values.map(\.name) == ["phone"])
        #expect(sighting.writers.values.first?.lastWrote == sharedEpoch)
        let content = setUp.b.mirror.content
        #expect(!content.readSegments.contains(path), "read again on every import")
        #expect(content.versions[versions[0].key] == nil, "never merged")
      }
      let survey = try setUp.cloud.survey(setUp.b.mirror, deviceBlobs: setUp.b.blobs)
      #expect(survey.otherZones.first?.segments == [path])
      let view = try setUp.cloud.view(of: setUp.b.mirror, deviceBlobs: setUp.b.blobs)
      #expect(view.otherZones.first?.segments == [path])
    }
  }

  /// Its device joined this zone and wrote the same versions again: nothing of the old
  /// segment is news any more, so it is settled (marked read) and no longer reported.
  @Test func aSegmentWhoseVersionsAreAllKnownHereIsSettled() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let (path, versions) = try dropOtherZone(setUp)
      let again = DeviceID.make()
      try put(
        segmentBytes(zone: setUp.zone, device: again, versions: versions),
        at: setUp.path("devices/\(again.rawValue)/000001.jsonl"))
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(report.otherZones.isEmpty, "\(report.otherZones)")
      #expect(setUp.b.mirror.content.readSegments.contains(path))
    }
  }

  /// An earlier version of stash marked such a segment read after reporting it once: it is
  /// looked at again, so that a race that began then is reported too.
  @Test func aSegmentOfAnotherZoneMarkedReadByAnEarlierVersionIsReportedAgain() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let (path, _) = try dropOtherZone(setUp)
      try setUp.b.mirror.update { _, transaction in transaction.markRead(segment: path) }
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(report.otherZones.first?.segments == [path], "\(report)")
    }
  }

  /// The sync tool kept the other zone's `zone.json`: this device goes on with its own zone,
  /// which the folder still holds segments of, and reports the other. A folder without any of
  /// this mirror's segments is another account's: refused, as before.
  @Test func aZoneFileNamingAnotherZoneIsARaceOnlyWhereThisZonesSegmentsAre() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let other = RecordID.make().rawValue
      let zoneFile = setUp.path("zone.json")
      try FileManager.default.removeItem(atPath: zoneFile)
      try put(
        Array(#"{"format":"stash.zone","version":1,"zone":"\#(other)"}"#.utf8) + [10], at: zoneFile)
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      let sighting = try #require(report.otherZones.first)
      #expect(sighting.zone == other && sighting.namedByZoneFile && !sighting.hasLiveSegments)
      #expect(setUp.b.mirror.content.zone == setUp.zone)

      let elsewhere = folder.appendingPathComponent("other-account")
      try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
      try put(
        try Array(Data(contentsOf: URL(fileURLWithPath: zoneFile))),
        at: elsewhere.path + "/zone.json")
      let before = try setUp.b.file()
      #expect(throws: CloudError.self) {
        try CloudFolder(root: elsewhere.path).importNew(
          into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      }
      #expect(try setUp.b.file() == before)
    }
  }

  /// rclone bisync renamed `zone.json`: a device whose segments are there publishes it again,
  /// naming its own zone; one arriving meanwhile is never replaced.
  @Test func aLostZoneFileIsPublishedAgainWithoutReplacingOne() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let zoneFile = setUp.path("zone.json")
      try FileManager.default.moveItem(atPath: zoneFile, toPath: zoneFile + "..path1")
      let survey = try setUp.cloud.survey(setUp.b.mirror, deviceBlobs: setUp.b.blobs)
      #expect(survey.zoneFileMissing)
      #expect(!FileManager.default.fileExists(atPath: zoneFile), "a survey writes nothing")
      _ = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      let text = try String(contentsOfFile: zoneFile, encoding: .utf8)
      #expect(text.contains(setUp.zone))
      #expect(FileManager.default.fileExists(atPath: zoneFile + "..path1"), "left alone")
    }
  }
}
