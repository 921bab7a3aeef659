import Stash
import StashModel
import StashTestSupport
import Testing

/// What a digest keeps per record (issue 26, item 4), measured alone
/// (``HeapUsage/measuredAlone(_:)``), so that other tests' allocations never count.
@Suite(.serialized) struct DigestMemoryTests {
  static let count = 2_000

  /// A digest keeps each record's id as the id (16 bytes), not as its text. Keyed by the
  /// text, every leaf held a 36-byte string of its own (80 bytes of heap): `sync verify`
  /// builds two digests of the whole store, whose ids were 21 MB of its 179 MB peak at
  /// 100,000 items (massif). Here an entry took 210 bytes keyed by its text, 113 by its id.
  @Test func aDigestKeepsNoTextPerRecord() throws {
    guard HeapUsage.isAvailable else { return }
    var generator = SeededRandom(seed: 26)
    let keys = (0..<Self.count).map { _ in
      RecordKey(model: "item", id: RecordID.random(using: &generator))
    }
    let entry = InventoryDigest.Entry(
      isTombstone: false, hash: SnapshotHash(hex: String(repeating: "ab", count: 32))!)
    // Built by updates: a whole digest hashes its buckets on every core, which a measurement
    // in a forked process cannot use.
    func bytesPerEntry() -> Int {
      let before = HeapUsage.bytesInUse
      var digest = InventoryDigest()
      for key in keys { digest.update(key, to: entry) }
      let after = HeapUsage.bytesInUse
      return withExtendedLifetime(digest) { (after - before) / Self.count }
    }
    _ = bytesPerEntry()  // what measuring needs, made here first
    let perEntry = try #require(HeapUsage.measuredAlone(bytesPerEntry))
    #expect(perEntry < 150, "\(perEntry) bytes an entry")
  }
}
