import StashBase
import StashModel
import Testing

/// The counter behind an item's stock: moves, merges, and arithmetic that never traps on a
/// number read from a file.
@Suite struct CounterTests {
  static let here = DeviceID("00000000-0000-4000-8000-0000000000a1")!
  static let there = DeviceID("00000000-0000-4000-8000-0000000000b1")!

  @Test func movesAddToThisDevicesTallyAndTheValueAddsThemUp() throws {
    let start = Counter(base: 5)
    let used = try #require(start.removing(2, by: Self.here))
    let restocked = try #require(used.adding(4, by: Self.there))
    #expect(restocked.value == 7)
    #expect(restocked.decrements == [Self.here: 2] && restocked.increments == [Self.there: 4])
    #expect(restocked.isSameEpoch(as: start) && !restocked.isPlain && start.isPlain)
  }

  @Test func aMergeTakesEachDevicesLargerTallyInAnyOrder() throws {
    let base = Counter(base: 10)
    let a = try #require(base.removing(3, by: Self.here))
    let used = try #require(base.removing(1, by: Self.there))
    let b = try #require(used.adding(5, by: Self.there))
    let ab = a.merged(with: [b])
    #expect(ab == b.merged(with: [a]))
    #expect(ab.merged(with: [a, b]) == ab, "merging again changes nothing")
    #expect(ab.value == Int64(10 - 3 - 1 + 5))
  }

  @Test func aRecountIsAnotherEpochEvenAtTheSameNumber() {
    let first = Counter(base: 5)
    let recount = Counter.recount(to: 5, epoch: .make())
    #expect(!first.isSameEpoch(as: recount))
    #expect(first.value == recount.value)
  }

  @Test func arithmeticNearTheLimitsRefusesInsteadOfTrapping() {
    #expect(Counter(base: 1, increments: [Self.here: .max]).value == nil, "overflow reads as nil")
    #expect(Counter(base: .max).adding(1, by: Self.here) == nil)
    #expect(Counter(base: .min).removing(1, by: Self.here) == nil)
    #expect(Counter(base: 0, decrements: [Self.here: .max]).removing(1, by: Self.here) == nil)
    #expect(Counter(base: 5).removing(-1, by: Self.here) == nil, "a negative move is none")
  }

  @Test func theFirstEpochWithoutMovesIsWrittenAsThePlainInteger() throws {
    #expect(Counter(base: 5).json == .integer(5))
    #expect(try Counter(json: .integer(5), field: "quantity") == Counter(base: 5))
    let moved = try #require(Counter(base: 5).removing(1, by: Self.here))
    #expect(try Counter(json: moved.json, field: "quantity") == moved)
    // One JSON form per counter: a first epoch without moves written as an object is refused.
    let object: JSONValue = .object([
      "epoch": .null, "base": .integer(5), "p": .object([:]), "n": .object([:]),
    ])
    #expect(throws: ModelError.self) { try Counter(json: object, field: "quantity") }
  }
}
