import Foundation
import Stash
import StashTestSupport
import Testing

/// What an import holds beside the items it adds (issue 26, item 4).
@Suite struct ImportMemoryTests {
  /// The report's ids are held in room made for every entry at once: grown by doubling, the
  /// report's items were the largest thing a 100,000-row CSV import held (with up to half of
  /// it unused, 4,129 places for these 3,000 items).
  @Test func anImportsReportHoldsItsItemsWithoutRoomToSpare() throws {
    try withTemporaryFolder { folder in
      let csv = folder.appendingPathComponent("items.csv")
      let rows = (0..<3000).map { "Tube \($0),\($0 % 7)\n" }
      try Data(("name,quantity\n" + rows.joined()).utf8).write(to: csv)
      let device = try DeviceFolder.open(
        at: folder.appendingPathComponent("home").path,
        options: DeviceFolder.Options(deviceName: "test-device", clock: { epoch }))
      let report = try device.importItems(DeviceFolder.readImport(at: csv.path, now: epoch))
      #expect(report.added.count == 3000)
      #expect(report.added.capacity < 3000 * 5 / 4, "room for \(report.added.capacity)")
    }
  }

  /// When an import's save is written, the process holds the store's records and the
  /// transaction's changes, not the file's entries and a copy of each item in the report
  /// beside them: those two were a third of a 100,000-row import's peak (issue 26, item 4).
  /// Measured as the bytes held when the save's observers are told, less those held once the
  /// import is done (the store's records), per item: 1,000 items, which every step handles
  /// on this thread, as a measurement in a forked process needs.
  @Test func anImportHoldsNoCopyOfItsItemsWhenItWrites() throws {
    guard HeapUsage.isAvailable else { return }
    try withTemporaryFolder { folder in
      let csv = folder.appendingPathComponent("items.csv")
      let rows = (0..<Self.items).map {
        "Tube number \($0) of the top shelf,\($0 % 7),Bought at the market on the corner\n"
      }
      try Data(("name,quantity,notes\n" + rows.joined()).utf8).write(to: csv)
      func device(_ name: String) throws -> DeviceFolder {
        try DeviceFolder.open(
          at: folder.appendingPathComponent(name).path,
          options: DeviceFolder.Options(deviceName: "test-device", clock: { epoch }))
      }
      let warm = try device("warm")
      let measured = try device("measured")
      _ = Self.bytesHeldBesideTheStore(importing: csv.path, into: warm)
      let perItem = try #require(
        HeapUsage.measuredAlone {
          Self.bytesHeldBesideTheStore(importing: csv.path, into: measured)
        })
      #expect(perItem > 0, "the save's observer was never told")
      #expect(perItem < 400, "\(perItem) bytes an item")
    }
  }

  private static let items = 1000

  /// The bytes held when the import's save is told to its observers, less those held after
  /// it, per item; -1 when the import fails.
  private static func bytesHeldBesideTheStore(importing path: String, into device: DeviceFolder)
    -> Int
  {
    let atSave = LockedBox(0)
    device.folder.observeSaves { _ in
      let held = HeapUsage.bytesInUse
      atSave.withLock { $0 = held }
    }
    // The file as a temporary: a binding here would hold its entries whatever the import does.
    let added = try? device.importItems(DeviceFolder.readImport(at: path, now: epoch)).added.count
    guard added == items else { return -1 }
    let after = HeapUsage.bytesInUse
    return (atSave.withLock { $0 } - after) / items
  }
}
