import Foundation
import LocalStore
import MirrorStore
import StashModel
import StashTestSupport
import Testing

@testable import Reconciler

/// What a pass holds per record while it writes (issue 26, item 4). A first sync and a
/// second device's import decide every record, and the plan is alive while both stores take
/// its writes: at 10,000 items it held 18 MB of a 39.6 MB peak (each decision's whole
/// situation, an effects array per record, the mirror's writes twice). It keeps what writing
/// needs: a key and a table row per record, its local effects, and the mirror's writes.
@Suite(.serialized) struct PlanMemoryTests {
  static let count = 3000

  /// The plan's bytes per record it copies, on this build: about 260 when it keeps what
  /// writing needs (a decided record's 48, one checkpoint effect, one mirror write), and
  /// about 900 when it kept each decision whole.
  static let bound = 400

  @Test func aPlanCopyingEveryRecordToTheMirrorKeepsLittlePerRecord() throws {
    guard HeapUsage.isAvailable else { return }
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      try stores.local.update("add") { _, transaction in
        for index in 0..<Self.count {
          try transaction.insert(tube("thing \(index)").record)
        }
      }
      let (local, mirror) = (stores.local.content, stores.mirror.content)
      let device = stores.local.deviceID
      let plan = try Plan(local: local, mirror: mirror, keys: nil, now: epoch, device: device)
      #expect(plan.report.copiedToMirror == Self.count)
      let perRecord = try #require(
        Self.bytesPerRecord(local: local, mirror: mirror, device: device))
      #expect(perRecord < Self.bound, "\(perRecord) bytes per record")
    }
  }

  @Test func aPlanCopyingEveryRecordFromTheMirrorKeepsLittlePerRecord() throws {
    guard HeapUsage.isAvailable else { return }
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      try stores.mirror.update { _, transaction in
        for index in 0..<Self.count {
          transaction.merge(
            MirrorVersion(
              snapshot: .record(tube("thing \(index)").record), parents: [], generation: 1,
              author: otherDevice, authoredAt: epoch))
        }
      }
      let (local, mirror) = (stores.local.content, stores.mirror.content)
      let device = stores.local.deviceID
      let plan = try Plan(local: local, mirror: mirror, keys: nil, now: epoch, device: device)
      #expect(plan.report.rows == [.cloudOnlyInsert: Self.count])
      let perRecord = try #require(
        Self.bytesPerRecord(local: local, mirror: mirror, device: device))
      #expect(perRecord < Self.bound, "\(perRecord) bytes per record")
    }
  }

  /// The bytes a plan over both stores keeps per record, measured alone (after a plan built
  /// here, which the caller checks).
  static func bytesPerRecord(local: LocalContent, mirror: MirrorContent, device: DeviceID) -> Int? {
    HeapUsage.measuredAlone {
      let before = HeapUsage.bytesInUse
      // A plan that fails (it cannot here: no rows are checked) reports no bound it meets.
      guard
        let plan = try? Plan(local: local, mirror: mirror, keys: nil, now: epoch, device: device)
      else { return .max }
      let after = HeapUsage.bytesInUse
      return withExtendedLifetime(plan) { (after - before) / count }
    }
  }
}
