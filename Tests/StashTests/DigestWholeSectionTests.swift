import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// A sync writes the local index's digest section straight from the records' ids
/// (``InventoryDigest/sectionBytes(of:)``, issue 26, item 5); the digest's own
/// ``InventoryDigest/sectionBytes()``, built through its tables of leaves, stays the reference:
/// the bytes must be the same for any entries.
@Suite struct DigestWholeSectionTests {
  static func entries(_ random: inout SeededRandom, count: Int, models: [String])
    -> [RecordKey: InventoryDigest.Entry]
  {
    var entries = [RecordKey: InventoryDigest.Entry]()
    for _ in 0..<count {
      let model = models[Int(random.next() % UInt64(models.count))]
      let key = RecordKey(model: model, id: RecordID.random(using: &random))
      entries[key] = InventoryDigest.Entry(
        isTombstone: random.next() % 5 == 0,
        hash: SnapshotHash(digest: SHA256.hash(random.bytes(8))))
    }
    return entries
  }

  @Test(arguments: TestEnvironment.seeds(default: 3))
  func theSectionIsTheDigestsOwn(seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let models = ["item", "location", "réminder", "a-model-of-another-tool"]
    for count in [0, 1, 2, 255, 3000] {
      let entries = Self.entries(&random, count: count, models: models)
      let direct = InventoryDigest.sectionBytes(of: entries)
      let reference = InventoryDigest(entries).sectionBytes()
      #expect(direct != nil)
      #expect(direct == reference, "seed \(seed), \(count) entries")
      // And it reads back to the digest of the entries.
      let read = try #require(InventoryDigest.reusing(section: direct ?? [], for: entries))
      #expect(read.rehashed == 0)
      #expect(read.digest.overall == InventoryDigest(entries).overall)
    }
  }

  @Test func aModelNameTooLongForTheFormatWritesNoSection() {
    let key = RecordKey(model: String(repeating: "m", count: 256), id: RecordID.make())
    let entries = [
      key: InventoryDigest.Entry(isTombstone: false, hash: SnapshotHash(digest: .zero))
    ]
    #expect(InventoryDigest.sectionBytes(of: entries) == nil)
    #expect(InventoryDigest(entries).sectionBytes() == nil)
  }
}
