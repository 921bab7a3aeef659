import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

@testable import MirrorStore

/// The versions an export sends, listed in their order (issue 26, item 4): a first sync's
/// export lists every version of the mirror, while the local store's index and the digest
/// section are written on other cores. A list of them, grown by doubling, held 8.9 and 17.8
/// MB at 100,000 versions at a first sync's peak; with room for exactly them, 13.6 MB. The
/// versions are read from the mirror's tables now, in an order that takes 4 bytes a version.
@Suite struct PendingVersionsTests {
  @Test func thePendingVersionsHoldOnlyTheirOrder() throws {
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let pending = mirror.content.pendingVersions
      #expect(pending.count == 3_100)
      #expect(pending.orderCapacity <= pending.count + 16, "room for \(pending.orderCapacity)")
      let order = pending.map { [$0.key.model, $0.key.id.rawValue, $0.id.description] }
      #expect(order == order.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }
}
