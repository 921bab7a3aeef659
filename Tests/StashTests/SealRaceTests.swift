import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import Stash

/// A segment another device publishes while this device syncs, after its import listed the
/// shared folder, must be read by the next sync: the seal this sync writes lists the folder
/// afresh, so it must not be written while the folder holds a segment the mirror has not
/// read. Found by `ParallelSyncTests` under load (a restock that never reached the other
/// device: its segment sat in the shared folder, covered by the other device's seal).
@Suite struct SealRaceTests {
  @Test func aSegmentPublishedDuringASyncIsReadByTheNext() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let (a, b) = (root.appendingPathComponent("a"), root.appendingPathComponent("b"))
      for folder in [a, b] { try openDevice(folder).folder.enableSync(cloud: cloud.path) }
      try openDevice(a).addItem(Item(name: "Soap", quantity: 10, createdAt: epoch))
      _ = try openDevice(a).folder.sync()
      _ = try openDevice(b).folder.sync()
      try openDevice(a).addItem(Item(name: "Shampoo", quantity: 3, createdAt: epoch))

      // b's clock: the fourth time b's sync asks it (the first three come before its import
      // lists the folder: opening the stores, the import's time), device a syncs and publishes
      // its Shampoo segment. The expectations after the sync check it came after the import.
      let calls = Mutex(0)
      let publisher = a.path
      let device = try DeviceFolder.open(
        at: b.path,
        options: .init(
          deviceName: "test-device",
          clock: {
            let call = calls.withLock { calls in
              calls += 1
              return calls
            }
            if call == 4 {
              let other = try? DeviceFolder.open(
                at: publisher, options: .init(deviceName: "test-device", clock: { epoch }))
              _ = try? other?.folder.sync()
            }
            return epoch
          }))
      let during = try device.folder.syncFully()
      #expect(calls.withLock { $0 } >= 4, "the clock was asked after the import")
      #expect(during.versionsImported == 0, "the segment arrived after the import")
      let segments = try FileManager.default.subpathsOfDirectory(atPath: cloud.path + "/devices")
        .filter { $0.hasSuffix(".jsonl") }
      #expect(segments.count == 2, "\(segments)")

      // The next sync is not skipped as one with nothing new, and brings the Shampoo.
      #expect(try SyncSealTests.Setup.shortcut(at: b.path) == nil)
      let next = try openDevice(b).folder.sync()
      #expect(next.versionsImported == 1)
      #expect(try openDevice(b).items().map(\.name).sorted() == ["Shampoo", "Soap"])
    }
  }
}
