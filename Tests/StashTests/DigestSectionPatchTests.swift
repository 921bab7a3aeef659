import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// `sync status` from the index: the digest section patched with the records changed since
/// it was written (``InventoryDigest/patching(sectionLength:read:with:)``), reading only the
/// buckets those records fall in (issue 26, item 3).
@Suite struct DigestSectionPatchTests {
  /// Random entries of three models, and a way to make more.
  struct Inventory {
    var random: SeededRandom
    var entries = [RecordKey: InventoryDigest.Entry]()
    var keys = [RecordKey]()
    var step = 0
    let seed: UInt64

    init(seed: UInt64, count: Int, models: [String] = ["item", "location", "reminder"]) {
      self.seed = seed
      random = SeededRandom(seed: seed)
      for _ in 0..<count {
        let model = models[Int(random.next() % UInt64(models.count))]
        add(RecordKey(model: model, id: RecordID.random(using: &random)))
      }
    }

    mutating func entry(tombstone: Bool) -> InventoryDigest.Entry {
      step += 1
      return .init(
        isTombstone: tombstone, hash: SnapshotHash(digest: SHA256.hash("\(seed) \(step)")))
    }

    mutating func add(_ key: RecordKey) {
      keys.append(key)
      entries[key] = entry(tombstone: random.next() % 4 == 0)
    }
  }

  /// Patches `section` with `changes`, counting the bytes it reads.
  static func patch(
    _ section: [UInt8], _ changes: [RecordKey: InventoryDigest.Entry?]
  ) -> (digest: InventoryDigest?, read: Int) {
    var read = 0
    let digest = InventoryDigest.patching(
      sectionLength: section.count,
      read: { offset, count in
        guard offset >= 0, count >= 0, offset + count <= section.count else { return nil }
        read += count
        return Array(section[offset..<(offset + count)])
      }, with: changes)
    return (digest, read)
  }

  static func expectSame(_ patched: InventoryDigest?, _ full: InventoryDigest, _ seed: UInt64) {
    #expect(patched?.overall == full.overall, "seed \(seed)")
    #expect(patched?.perModel == full.perModel, "seed \(seed)")
    #expect(patched?.counts == full.counts, "seed \(seed)")
  }

  /// Records removed, made tombstones, added (some of a model the section lacks), and some
  /// listed as changed that did not change: the patched digest is the one computed afresh.
  @Test func patchingEqualsAFullRebuildForRandomChanges() throws {
    for seed in TestEnvironment.seeds(default: 8) {
      print("DigestSectionPatchTests seed \(seed) (STASH_SEED=\(seed) replays it)")
      var inventory = Inventory(seed: seed, count: 600)
      let section = try #require(InventoryDigest(inventory.entries).sectionBytes())
      var touched = Set<RecordKey>()
      for _ in 0..<Int(inventory.random.next() % 40) {
        let key = inventory.keys[Int(inventory.random.next() % UInt64(inventory.keys.count))]
        switch inventory.random.next() % 4 {
        case 0: inventory.entries[key] = nil
        case 1: inventory.entries[key] = inventory.entry(tombstone: true)
        case 2:
          let model = inventory.random.next() % 2 == 0 ? "item" : "meter"
          inventory.add(RecordKey(model: model, id: RecordID.random(using: &inventory.random)))
          touched.insert(inventory.keys.last!)
        default: break  // listed as changed, though it is not
        }
        touched.insert(key)
      }
      var changes = [RecordKey: InventoryDigest.Entry?]()
      for key in touched { changes[key] = .some(inventory.entries[key]) }
      Self.expectSame(Self.patch(section, changes).digest, InventoryDigest(inventory.entries), seed)
    }
  }

  /// One change in 40,000 records: the section's model head and the one bucket it falls in
  /// are read, not the other 255 (before, every entry was read to find that bucket's).
  @Test func patchingReadsOnlyTheBucketsThatChanged() throws {
    var inventory = Inventory(seed: 26, count: 40_000, models: ["item"])
    let section = try #require(InventoryDigest(inventory.entries).sectionBytes())
    let key = inventory.keys[17]
    inventory.entries[key] = inventory.entry(tombstone: true)
    let (digest, read) = Self.patch(section, [key: inventory.entries[key]])
    Self.expectSame(digest, InventoryDigest(inventory.entries), 26)
    #expect(read < section.count / 10, "read \(read) of \(section.count) bytes")
  }

  /// A section cut short, or with a model's bucket lengths not adding up, is not used.
  @Test func aSectionThatDoesNotAddUpIsNotUsed() throws {
    let inventory = Inventory(seed: 7, count: 300)
    let section = try #require(InventoryDigest(inventory.entries).sectionBytes())
    let key = inventory.keys[0]
    #expect(Self.patch(Array(section.dropLast()), [key: nil]).digest == nil)
    #expect(Self.patch(section + [0], [key: nil]).digest == nil)
    #expect(Self.patch(section, [key: nil]).digest != nil)
  }
}
