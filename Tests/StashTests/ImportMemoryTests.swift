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
    let perItem = try #require(try Self.measuredImport(Self.bytesHeldBesideTheStore))
    #expect(perItem > 0, "the save's observer was never told")
    #expect(perItem < 400, "\(perItem) bytes an item")
  }

  /// An import lets the file's entries go as it makes their records, a block of them at a
  /// time, instead of holding every entry beside every record until the last: at the end of
  /// its loop a 100,000-row CSV import held both (30 MB of entries beside 35 MB of records,
  /// massif), which was its peak (issue 26, item 4). Measured as what the heap grew by from
  /// the first entry's record to the last one's, per item: each record's values (about 350
  /// bytes for these), less the entries let go meanwhile (about 300 bytes each): 375 bytes
  /// an item when they were held to the end, 173 when let go in blocks of 256.
  @Test func anImportLetsItsEntriesGoAsItMakesTheirRecords() throws {
    guard HeapUsage.isAvailable else { return }
    let perItem = try #require(try Self.measuredImport(Self.bytesGrownWhileMakingRecords))
    #expect(perItem != Int.min, "the import failed")
    #expect(perItem < 250, "\(perItem) bytes an item")
  }

  /// What `measure` finds of an import of ``items`` rows of a CSV file into a new folder, in
  /// a child process (``HeapUsage/measuredAlone(_:)``), after a first import into another
  /// folder made everything the measurement needs.
  private static func measuredImport(
    _ measure: @escaping (_ path: String, _ device: DeviceFolder) -> Int
  ) throws -> Int? {
    try withTemporaryFolder { folder in
      let csv = folder.appendingPathComponent("items.csv")
      let rows = (0..<items).map {
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
      _ = measure(csv.path, warm)
      return HeapUsage.measuredAlone { measure(csv.path, measured) }
    }
  }

  /// What the heap grew by from the first entry's progress report to the last one's, per
  /// item; `Int.min` when the import fails.
  private static func bytesGrownWhileMakingRecords(_ path: String, _ device: DeviceFolder) -> Int {
    var first = 0
    var last = 0
    let added = try? device.importItems(DeviceFolder.readImport(at: path, now: epoch)) {
      done, total in
      if done == 1 { first = HeapUsage.bytesInUse }
      if done == total { last = HeapUsage.bytesInUse }
    }.added.count
    guard added == items else { return Int.min }
    return (last - first) / items
  }

  private static let items = 1000

  /// The bytes held when the import's save is told to its observers, less those held after
  /// it, per item; -1 when the import fails.
  private static func bytesHeldBesideTheStore(_ path: String, _ device: DeviceFolder) -> Int {
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
