import Foundation
import Stash
import StashTestSupport
import Testing

/// What an import holds beside the items it adds (issue 26, item 4).
@Suite struct ImportMemoryTests {
  /// The report's items are held in room made for every entry at once: grown by doubling,
  /// they were the largest thing a 100,000-row CSV import held (with up to half of it unused,
  /// 4,129 places for these 3,000 items).
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
}
