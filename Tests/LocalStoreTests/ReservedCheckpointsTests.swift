import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A pass that binds the checkpoints and puts one for every record (a first sync's) makes room
/// for them before applying it (issue 26, item 4): grown by doubling, the table and its lines'
/// kept room for 131,072 at 100,000 records, and both storages were alive while they grew.
@Suite struct ReservedCheckpointsTests {
  @Test func aFirstPassGrowsTheCheckpointTablesOnce() throws {
    try withTemporaryFolder { folder in
      let store = try HistoryScanTests.open(folder, HistoryScanTests.never)
      let mirror = StoreID("00000000-0000-4000-8000-00000000c10d")!
      try store.update("a first pass") { _, transaction in
        transaction.bindCheckpoints(to: mirror)
        for number in 0..<3_100 {
          let hash = SnapshotHash(digest: SHA256.hash(Array("\(number)".utf8)))
          transaction.setCheckpoint(
            SyncFocusTests.key(number), to: Checkpoint(hash: hash, isTombstone: false))
        }
      }
      let content = store.content
      #expect(content.checkpoints.count == 3_100)
      let room = content.checkpoints.entryCapacity
      #expect(room < 3_200, "room for \(room)")
      // Binding again keeps the room, and a pass of as many records fits in it.
      try store.update("a pass against another mirror") { _, transaction in
        transaction.bindCheckpoints(to: StoreID("00000000-0000-4000-8000-0000000000ff")!)
        for number in 0..<3_100 {
          let hash = SnapshotHash(digest: SHA256.hash(Array("again \(number)".utf8)))
          transaction.setCheckpoint(
            SyncFocusTests.key(number), to: Checkpoint(hash: hash, isTombstone: false))
        }
      }
      #expect(store.content.checkpoints.count == 3_100)
      #expect(store.content.checkpoints.entryCapacity == room)
    }
  }
}
