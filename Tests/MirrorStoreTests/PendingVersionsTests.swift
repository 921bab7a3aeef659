import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

@testable import MirrorStore

/// The versions an export sends, listed in their order (issue 26, item 4): a first sync's
/// export lists every version of the mirror, while the local store's index and the digest
/// section are written on other cores. Grown by doubling, the list's last two buffers (8.9
/// and 17.8 MB at 100,000 versions) were both alive at a first sync's peak; it has room for
/// exactly its versions now.
@Suite struct PendingVersionsTests {
  @Test func thePendingListHasRoomForExactlyItsVersions() throws {
    let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
    let device = DeviceID("00000000-0000-4000-8000-00000000a11c")!
    try withTemporaryFolder { folder in
      let mirror = try MirrorStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path), create: (device, epoch, nil))
      let writes = (0..<3_100).map { index in
        (
          snapshot: Snapshot.record(
            Item(name: "thing \(index)", quantity: 1, createdAt: epoch).record),
          parents: Set<VersionID>()
        )
      }
      try mirror.update { _, transaction in transaction.write(writes, author: device, at: epoch) }
      let pending = mirror.content.pendingVersions
      #expect(pending.count == 3_100)
      #expect(pending.capacity == pending.count, "room for \(pending.capacity)")
      let order = pending.map { [$0.key.model, $0.key.id.rawValue, $0.id.description] }
      #expect(order == order.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }
}
