import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A version another device wrote that a local edit could never have made.
struct InvalidVersionCase: CustomTestStringConvertible, Sendable {
  let label: String
  let version: @Sendable () -> MirrorVersion
  var testDescription: String { label }

  static let all: [InvalidVersionCase] = [
    .init(label: "quantity -5") { remoteVersion(.record(rawItem(quantity: -5))) },
    .init(label: "quantity Int64.min") { remoteVersion(.record(rawItem(quantity: .min))) },
    .init(label: "quantity Int64.max") { remoteVersion(.record(rawItem(quantity: .max))) },
    .init(label: "an empty name") { remoteVersion(.record(rawItem(name: ""))) },
    .init(label: "a name with an escape sequence") {
      remoteVersion(.record(rawItem(name: "\u{1B}[31mred\u{1B}[0m")))
    },
    .init(label: "a name with a newline") { remoteVersion(.record(rawItem(name: "two\nlines"))) },
    .init(label: "a date of 1e308") { remoteVersion(.record(rawItem(created: 1e308))) },
    .init(label: "a 1 MB name") {
      remoteVersion(.record(rawItem(name: String(repeating: "n", count: 1_000_000))))
    },
    .init(label: "latitude 1000") {
      remoteVersion(.record(rawLocation(latitude: 1000, longitude: 4, radius: nil)))
    },
    .init(label: "radius -5") {
      remoteVersion(.record(rawLocation(latitude: nil, longitude: nil, radius: -5)))
    },
    .init(label: "trigger bogus") { remoteVersion(.record(rawReminder(trigger: "bogus"))) },
    .init(label: "a tombstone of 1e308") {
      remoteVersion(
        .tombstone(
          Tombstone(
            model: "item", id: .make(), deletedAt: Timestamp(secondsSince1970: 1e308)!,
            deletedHash: rawItem().snapshotHash)))
    },
    .init(label: "generation Int64.max") { remoteVersion(.record(rawItem()), generation: .max) },
    .init(label: "a photo of a terabyte") {
      let photo = BlobRef(digest: SHA256.hash([1, 2, 3]), size: 1 << 40)
      return remoteVersion(.record(rawItem(photo: photo)))
    },
  ]
}

/// Every imported version passes the checks a local edit gets, or it is rejected, reported and
/// never applied (nor passed on).
@Suite struct ImportValidationTests {
  @Test(arguments: InvalidVersionCase.all)
  func anInvalidVersionIsRejectedReportedAndNeverApplied(_ invalid: InvalidVersionCase) throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let writer = DeviceID.make()
      let bad = invalid.version()
      let good = remoteVersion(.record(rawItem(name: "Honest")))
      let relative = "devices/\(writer.rawValue)/000001.jsonl"
      try put(
        segmentBytes(zone: setUp.zone, device: writer, versions: [bad, good]),
        at: setUp.path(relative))
      let report = try setUp.cloud.importNew(
        into: setUp.b.mirror, deviceBlobs: setUp.b.blobs, at: sharedEpoch)
      let content = setUp.b.mirror.content
      #expect(content.versions[bad.key] == nil, "the invalid version was applied")
      #expect(content.versions[good.key] != nil, "the valid version beside it is applied")
      let rejection = report.rejected.first { $0.segment == relative }
      #expect(rejection?.reason.contains(bad.hash.short) == true, "\(report.rejected)")
      #expect(content.pending.isEmpty, "nothing imported is exported again")
      #expect(content.checkInvariants() == [])
    }
  }
}
