import Foundation
import StashModel
import Testing

@testable import MirrorStore

/// The lookup a mirror's open uses for every version it reads (issue 26, item 4).
@Suite struct RecordSharingLookupTests {
  /// As many lookups as a mirror of 200,000 versions makes, each as cheap as the first: the
  /// first version kept the closure in the mutex itself, and every lookup wrapped it in two
  /// more conversion thunks, so this overflowed the stack (a `sync verify` of 100,000 items
  /// crashed with SIGSEGV).
  @Test func everyLookupCostsTheSameHoweverManyCameBefore() throws {
    let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
    let offered = Item(name: "Koleston", quantity: 3, createdAt: epoch).record
    let sharing = RecordSharing { [offered] key in key == offered.key ? offered : nil }
    let copy = try Record(schema: offered.schema, id: offered.id, values: Array(offered.values))
    var shared = 0
    for _ in 0..<200_000 where sharing.shared(copy).values == offered.values { shared += 1 }
    #expect(shared == 200_000)
    sharing.end()
    #expect(sharing.shared(copy) == copy)
  }
}
