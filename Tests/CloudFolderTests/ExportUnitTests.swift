import CloudFolder
import Foundation
import MirrorStore
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// What one export sends reaches another device whole or not yet: a transaction larger than a
/// segment, or many transactions pending at once, never arrives in halves (issue 24, item 3).
@Suite struct ExportUnitTests {
  /// More versions than one segment holds, written as one transaction on device A.
  private static let count = CloudLimits.versionsPerSegment + 904

  private func writeMany(on device: TestDevice) throws {
    try device.mirror.update { _, transaction in
      for number in 0..<Self.count {
        let item = Item(name: "Tube \(number)", quantity: 1, createdAt: sharedEpoch)
        transaction.write(
          .record(item.record), parents: [], author: device.device, at: sharedEpoch)
      }
    }
  }

  /// A shared folder where device A wrote ``count`` versions in one transaction and exported
  /// them (in two segments).
  private func exportMany(_ folder: URL) throws -> (SharedSetUp, ExportReport) {
    let setUp = try SharedSetUp(folder)
    try writeMany(on: setUp.a)
    let export = try setUp.cloud.export(
      from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
    return (setUp, export)
  }

  @Test func anExportOfSeveralSegmentsIsMergedOnlyOnceEveryPartHasArrived() throws {
    try withTemporaryFolder { folder in
      let (setUp, export) = try exportMany(folder)
      try #require(export.segments.count == 2)
      // The sync tool has delivered the first part only.
      let second = setUp.path(export.segments[1])
      let aside = folder.appendingPathComponent("in-transit.jsonl").path
      try FileManager.default.moveItem(atPath: second, toPath: aside)
      let before = try setUp.b.file()
      let early = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(early.versionsImported == 0, "none of the export before all of it is here")
      #expect(try setUp.b.file() == before, "the mirror is unchanged")
      #expect(early.waiting.map(\.segment) == [export.segments[0]])
      #expect(early.waiting.first?.reason.contains("part 2 has not arrived") == true)
      // The rest arrives: all of it is merged, in one import.
      try FileManager.default.moveItem(atPath: aside, toPath: second)
      let whole = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(whole.versionsImported == Self.count)
      #expect(whole.waiting.isEmpty && whole.rejected.isEmpty)
      #expect(whole.segmentsRead == 2)
    }
  }

  @Test func anExportOfOneSegmentIsWrittenInFormatThreeAsBefore() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      try setUp.a.write(Item(name: "Second", quantity: 1, createdAt: sharedEpoch).record)
      let export = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      let text = try String(
        contentsOfFile: setUp.path(try #require(export.segment)), encoding: .utf8)
      let header = try #require(text.split(separator: "\n").first)
      #expect(header.contains(#""version":3"#))
      #expect(!header.contains(#""unit""#))
    }
  }

  @Test func theSegmentsOfAUnitSayWhichPartTheyAreAndWhichIsLast() throws {
    try withTemporaryFolder { folder in
      let (setUp, export) = try exportMany(folder)
      let headers = try export.segments.map { segment in
        let text = try String(contentsOfFile: setUp.path(segment), encoding: .utf8)
        return String(text.prefix { $0 != "\n" })
      }
      #expect(headers.allSatisfy { $0.contains(#""version":5"#) })
      #expect(headers[0].contains(#""part":1"#) && !headers[0].contains(#""last""#))
      #expect(headers[1].contains(#""part":2,"last":true"#))
      // The unit is named by its first part's export identifier.
      let first = try #require(headers[0].firstRange(of: #""export":""#))
      let id = headers[0][first.upperBound...].prefix { $0 != "\"" }
      #expect(headers.allSatisfy { $0.contains(#""unit":""# + id + "\"") })
    }
  }

  @Test func anExportInterruptedBetweenPartsIsFinishedByTheNextAsTheSameUnit() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      try writeMany(on: setUp.a)
      // The machine stops while publishing the second part.
      let files = ScriptedFileSystem()
      files.beforePublish { destination in
        if destination.hasSuffix("/000003.jsonl") { files.crash(atCall: 1) }
      }
      let crashing = CloudFolder(root: setUp.cloud.root, fileSystem: files)
      #expect(throws: (any Error).self) {
        try crashing.export(from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      }
      #expect(files.hasCrashed)
      let early = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(early.versionsImported == 0, "the first part alone is not merged")
      // The next export sends the rest as the unit's last part (sequence 3 was recorded
      // before the crash, so it takes 4).
      let next = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(next.segments.count == 1)
      #expect(setUp.a.mirror.content.pending.isEmpty)
      let text = try String(contentsOfFile: setUp.path(next.segments[0]), encoding: .utf8)
      #expect(text.prefix { $0 != "\n" }.contains(#""part":2,"last":true"#))
      let whole = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(whole.versionsImported == Self.count)
      #expect(whole.waiting.isEmpty && whole.rejected.isEmpty)
    }
  }

  @Test func aPartThatWaitedForAPhotoIsMergedWhenThePhotoArrives() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      var random = SeededRandom(seed: 5)
      let photo = try setUp.a.blobs.store(random.bytes(300))
      try writeMany(on: setUp.a)
      try setUp.a.write(
        Item(name: "Zz with a photo", quantity: 1, photo: photo, createdAt: sharedEpoch).record)
      let export = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      try #require(export.segments.count == 2)
      // The photo is still in transit: only its record waits; the rest of the unit is merged.
      let shared = setUp.path("blobs/" + photo.digest.hex)
      let aside = folder.appendingPathComponent("photo-in-transit").path
      try FileManager.default.moveItem(atPath: shared, toPath: aside)
      let first = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(first.versionsImported == Self.count)
      try FileManager.default.moveItem(atPath: aside, toPath: shared)
      // The part that waited is read alone now, its unit's other part read before.
      let second = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(second.versionsImported == 1)
      #expect(second.waiting.isEmpty && second.rejected.isEmpty)
    }
  }

  @Test(arguments: [
    (#""part":1"#, #""part":0"#, "its unit is damaged"),
    (#""part":1"#, #""part":1,"last":false"#, "its unit is damaged"),
    (#""version":5"#, #""version":6"#, "newer than this stash reads"),
  ])
  func aDamagedPartIsRejectedAndTheRestOfItsUnitWaits(
    found: String, replacement: String, reason: String
  ) throws {
    try withTemporaryFolder { folder in
      let (setUp, export) = try exportMany(folder)
      let first = setUp.path(export.segments[0])
      let text = try String(contentsOfFile: first, encoding: .utf8)
      let header = String(text.prefix { $0 != "\n" })
      try #require(header.contains(found))
      let damaged = header.replacingOccurrences(of: found, with: replacement)
      try Data((damaged + text.dropFirst(header.count)).utf8).write(
        to: URL(fileURLWithPath: first))
      let before = try setUp.b.file()
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      #expect(report.versionsImported == 0)
      #expect(try setUp.b.file() == before)
      #expect(report.rejected.map(\.segment) == [export.segments[0]])
      #expect(report.rejected.first?.reason.contains(reason) == true, "\(report.rejected)")
      #expect(report.waiting.map(\.segment) == [export.segments[1]])
    }
  }
}
