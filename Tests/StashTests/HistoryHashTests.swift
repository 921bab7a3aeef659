import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `history ITEM` hashes each version of the record it reads once (issue 26, item 3: a
/// one-record command costs what `show` costs). Each version's hash was computed three times
/// (to skip a save of the same version, to look it up among the mirror's, to name the
/// event): at 187 versions, 18 of the 91 million instructions the command took.
@Suite struct HistoryHashTests {
  static let edits = 20

  @Test func historyHashesEachVersionOnce() throws {
    try withTemporaryFolder { folder in
      let device = try DeviceFolder.open(
        at: folder.appendingPathComponent("home").path,
        options: DeviceFolder.Options(deviceName: "test-device", clock: { epoch }))
      try device.addItem(Item(name: "Koleston 7/1", quantity: 1, createdAt: epoch))
      for edit in 1...Self.edits {
        try device.editItem("Koleston 7/1") { $0.notes = "Edit \(edit)" }
      }
      func hashes() -> Int {
        let counted = try? hashCensus.counting("item") { try device.history(of: "Koleston 7/1") }
        return counted.map { $0.result.events.count == Self.edits + 1 ? $0.count : -1 } ?? -2
      }
      _ = hashes()  // what measuring needs, made here first
      // Alone in a child process: other suites hash items meanwhile.
      let counted = try #require(HeapUsage.measuredAlone(hashes))
      #expect(counted >= 0, "history failed or missed events (\(counted))")
      #expect(counted <= Self.edits + 1, "\(counted) hashes for \(Self.edits + 1) versions")
    }
  }
}
