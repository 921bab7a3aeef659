import StashBase
import StashModel
import Testing

/// What a counter costs in a record's values (issue 26, item 4): its base inline, and its
/// epoch and moves out of line only when it has them. Boxed whole, every counter (every item's
/// stock) was an allocation of its own in every command that reads a store whole.
@Suite struct CounterLayoutTests {
  /// A counter fits in a field value beside the other kinds, without a box.
  @Test func aCounterIsHeldInlineInAFieldValue() {
    #expect(MemoryLayout<Counter>.size == 16, "its base and one reference")
    #expect(MemoryLayout<FieldValue>.size <= 17, "no larger than a reference's value")
  }

  /// A plain counter and one with moves compare and hash by what they hold, however they were
  /// made: zero tallies are dropped, so a counter whose only tally is zero is plain.
  @Test func countersCompareByWhatTheyHold() throws {
    let device = DeviceID("00000000-0000-4000-8000-0000000000a1")!
    let plain = Counter(base: 5)
    let zero = Counter(base: 5, increments: [device: 0], decrements: [device: 0])
    #expect(plain.isPlain && zero.isPlain)
    #expect(plain == zero && plain.hashValue == zero.hashValue)
    #expect(plain.epoch == nil && plain.increments.isEmpty && plain.decrements.isEmpty)

    let restocked = try #require(plain.adding(3, by: device))
    #expect(!restocked.isPlain && restocked.value == 8 && restocked.increments == [device: 3])
    #expect(plain.value == 5, "the counter it was made from is unchanged")
    let back = try #require(restocked.removing(3, by: device))
    #expect(back.value == 5 && back != plain, "a move both ways is still two moves")
    #expect(back == Counter(base: 5, increments: [device: 3], decrements: [device: 3]))
    #expect(try #require(plain.adding(0, by: device)).isPlain)

    let epoch = CounterEpoch(RecordID.make())
    let recounted = Counter.recount(to: 5, epoch: epoch)
    #expect(!recounted.isPlain && recounted != plain && recounted.epoch == epoch)
    #expect(recounted.isSameEpoch(as: Counter(base: 5, epoch: epoch)))
    #expect(Counter(base: 5, epoch: epoch) == recounted)
    #expect(Set([plain, zero, recounted, back]).count == 3)
  }
}
