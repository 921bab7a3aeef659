import LocalStore
import StashBase
import StashModel
import Testing

/// What a change costs in a transaction's list (issue 26, item 4).
@Suite struct LocalChangeLayoutTests {
  /// A change takes the room of a row's or a checkpoint's, the changes a large transaction
  /// holds by the hundred thousand: the rare kinds that are larger (a conflict, the settings,
  /// a damaged row) are boxed. Inline, a conflict made every change 168 bytes (16.8 MB of a
  /// 100,000-row import's list).
  @Test func aChangeTakesTheRoomOfARowOrACheckpoint() {
    let row =
      MemoryLayout<RowID>.size + MemoryLayout<Record>.size + MemoryLayout<SnapshotHash>.size
    let checkpoint = MemoryLayout<RecordKey>.stride + MemoryLayout<Checkpoint>.size
    let size = MemoryLayout<LocalChange>.size
    #expect(
      size <= max(row, checkpoint) + 8, "\(size) bytes, a row \(row), a checkpoint \(checkpoint)")
  }
}
