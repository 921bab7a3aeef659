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
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let pending = mirror.content.pendingVersions
      #expect(pending.count == 3_100)
      #expect(pending.capacity == pending.count, "room for \(pending.capacity)")
      let order = pending.map { [$0.key.model, $0.key.id.rawValue, $0.id.description] }
      #expect(order == order.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }
}
