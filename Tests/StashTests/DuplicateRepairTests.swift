import Foundation
import LocalStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `stash doctor --repair` merges duplicates in place (seed 000's lesson): the winner is
/// updated and keeps its id, only the duplicates are deleted, with tombstones, once per
/// repair version.
@Suite struct DuplicateRepairTests {
  /// Two devices sharing a cloud folder, the first holding three items of one barcode (and
  /// one other item), all synced to the second.
  func twoDevicesWithDuplicates(_ root: URL) throws -> (a: DeviceFolder, b: DeviceFolder) {
    let cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    for name in ["a", "b"] {
      try openDevice(root.appendingPathComponent(name)).folder.enableSync(cloud: cloud.path)
    }
    let a = try openDevice(root.appendingPathComponent("a"))
    let b = try openDevice(root.appendingPathComponent("b"))
    let at = { (seconds: Double) in Timestamp(secondsSince1970: epoch.secondsSince1970 + seconds)! }
    try a.addItem(Item(name: "Koleston 7/1", quantity: 5, barcode: "4005", createdAt: at(0)))
    try a.addItem(
      Item(
        name: "Koleston 7/1 (copy)", brand: "Wella", quantity: 3, barcode: "4005", createdAt: at(10)
      ))
    try a.addItem(Item(name: "Koleston", quantity: 1, barcode: "4005", createdAt: at(5)))
    try a.addItem(Item(name: "Soap", quantity: 2, barcode: "9000", createdAt: at(0)))
    for device in [a, b, a, b] { _ = try device.folder.sync() }
    return (a, b)
  }

  @Test func tombstonesEqualDuplicatesAndTheWinnerKeepsItsIdAndIsFilledIn() throws {
    try withTemporaryFolder { root in
      let (a, _) = try twoDevicesWithDuplicates(root)
      let before = a.items().filter { $0.barcode == "4005" }
      let newest = try #require(before.max { $0.updatedAt < $1.updatedAt })
      let tombstones = a.folder.content!.tombstones.count
      let repair = try a.folder.repairDuplicates()
      #expect(repair.recordsDeleted.count == 2)
      #expect(a.folder.content!.tombstones.count == tombstones + 2)
      let after = a.items().filter { $0.barcode == "4005" }
      #expect(after.map(\.id) == [newest.id], "the most recently updated wins, in place")
      #expect(after.first?.brand == "Wella")
      #expect(a.items().count == 2)
    }
  }

  @Test func aSecondRepairDoesNothing() throws {
    try withTemporaryFolder { root in
      let (a, _) = try twoDevicesWithDuplicates(root)
      try a.folder.repairDuplicates()
      let store = try Data(contentsOf: root.appendingPathComponent("a/default.store"))
      let again = try a.folder.repairDuplicates()
      #expect(again.alreadyDone && again.recordsDeleted.isEmpty)
      #expect(try Data(contentsOf: root.appendingPathComponent("a/default.store")) == store)
    }
  }

  @Test func aSecondDeviceConvergesWithNoMoreDeletionsThanDuplicates() throws {
    try withTemporaryFolder { root in
      let (a, b) = try twoDevicesWithDuplicates(root)
      try a.folder.repairDuplicates()
      let bTombstones = b.folder.content!.tombstones.count
      for device in [a, b, a, b] { _ = try device.folder.sync() }
      #expect(b.folder.content!.tombstones.count == bTombstones + 2)
      #expect(b.items().map(\.id) == a.items().map(\.id))
      #expect(b.items() == a.items())
      #expect(a.folder.conflicts().isEmpty && b.folder.conflicts().isEmpty)
    }
  }

  @Test func bothDevicesRepairingTheSameDuplicatesAgreeWithoutAConflict() throws {
    try withTemporaryFolder { root in
      let (a, b) = try twoDevicesWithDuplicates(root)
      try a.folder.repairDuplicates()
      try b.folder.repairDuplicates()
      for device in [a, b, a, b] { _ = try device.folder.sync() }
      #expect(b.items() == a.items())
      #expect(a.items().count == 2)
      #expect(a.folder.conflicts().isEmpty && b.folder.conflicts().isEmpty)
    }
  }

  @Test func rowsSharingOneIdLeaveOneRowAndNoTombstone() throws {
    try withTemporaryFolder { root in
      let device = try openDevice(root.appendingPathComponent("home"))
      let item = try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      var older = item
      older.notes = "an older copy"
      older.updatedAt = Timestamp(secondsSince1970: epoch.secondsSince1970 - 60)!
      try device.folder.local!.update("a duplicate", origin: .user) { _, transaction in
        try transaction.insert(older.record)
      }
      #expect(device.folder.content!.rows(for: item.record.key).count == 2)
      let repair = try device.folder.repairDuplicates()
      #expect(repair.rowsRemoved == 1 && repair.recordsDeleted.isEmpty)
      #expect(device.folder.content!.rows(for: item.record.key).map(\.record) == [item.record])
      #expect(device.folder.content!.tombstones.isEmpty)
    }
  }
}
