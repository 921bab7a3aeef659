import Foundation
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport
import Testing

/// A synced folder's two stores hold mostly the same records: a mirror opened whole beside
/// the local store shares the records the two hold equal instead of decoding a second copy
/// (issue 26, item 4: every command that opens both whole, a sync or `sync verify`, held each
/// record twice).
@Suite struct RecordSharingTests {
  /// Where a record's values are stored: two records share their storage when it is the same.
  static func storage(_ record: Record) -> UnsafeRawPointer? {
    record.values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  @Test func aMirrorOpenedBesideTheLocalStoreSharesTheRecordsTheyHoldEqual() throws {
    try withTemporaryFolder { root in
      let pair = try CodablePair(root, schemas: [UncountedThing.schema])
      let when = Date(timeIntervalSince1970: 1_764_441_600)
      let things = (0..<40).map { index in
        UncountedThing(
          id: RecordID(String(format: "00000000-0000-4000-8000-%012d", index))!,
          name: "thing \(index)", note: "note \(index)", updatedAt: when)
      }
      try pair.open("a").write { tx in
        for thing in things { try tx.save(thing) }
      }
      _ = try pair.open("a").sync()
      var edited = things[7]
      edited.name = "renamed"
      try pair.open("a").save(edited)  // not synced: the row and the mirror now differ

      let folder = try pair.open("a")
      let local = try #require(folder.local?.content)
      let mirror = try #require(folder.mirror.store?.content)
      #expect(mirror.isComplete)
      var shared = 0
      for thing in things {
        let key = RecordKey(model: UncountedThing.model, id: thing.id)
        let row = try #require(local.row(for: key)?.record)
        let leaf = try #require(mirror.side(for: key).winner?.snapshot.record)
        if row == leaf {
          #expect(Self.storage(row) == Self.storage(leaf), "\(key) is held twice")
          shared += 1
        } else {
          #expect(thing.id == edited.id, "\(key) differs")
          #expect(Self.storage(row) != Self.storage(leaf))
        }
      }
      #expect(shared == things.count - 1)
    }
  }
}
