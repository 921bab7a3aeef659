import Foundation
import LocalStore
import StashTestSupport
import Testing

/// `RowMap` holds a store's rows and their lines by row number in an array (issue 26, items 4
/// and 5: at 100,000 rows the two dictionaries it replaces took 29 MB and their hashing 3% of
/// a first sync). It must answer exactly as the dictionary did, for any row number a line can
/// name, and never hold much more than the dictionary.
@Suite struct RowMapTests {
  /// Random histories as a store makes them (new rows numbered in turn, edits and removals
  /// of any row, and rows a damaged line names, below 1 or far beyond), against a dictionary.
  @Test(arguments: 0..<8)
  func answersAsADictionary(seed: Int) {
    var random = SeededRandom(seed: UInt64(seed))
    var map = RowMap<Int>()
    var reference = [RowID: Int]()
    var next: Int64 = 1
    var movedAside = false
    let steps = 30_000
    for step in 0..<steps {
      // Seeds over 3 remove most rows after the first 12,000 steps.
      let removing = seed > 3 && step > 12_000
      let row: RowID
      var remove = false
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<2: row = RowID(Int64.random(in: Int64.min...0, using: &random))
      case 2..<4: row = RowID(Int64.random(in: next + 5_000...Int64.max, using: &random))
      case 4..<(removing ? 8 : 60):
        row = RowID(next)
        next += 1
      default:
        row = RowID(Int64.random(in: 1...next, using: &random))
        remove = Int.random(in: 0..<100, using: &random) < (removing ? 98 : 30)
      }
      let inArray = map.rowsInArray
      if remove {
        #expect(map.removeValue(forKey: row) == reference.removeValue(forKey: row))
      } else {
        #expect(map.updateValue(step, forKey: row) == reference.updateValue(step, forKey: row))
      }
      #expect(map[row] == reference[row])
      #expect(map.count == reference.count)
      if inArray > 1_000, map.rowsInArray == 0 { movedAside = true }
    }
    #expect(movedAside == (seed > 3), "the array moves aside once it is mostly empty")
    let ordered = reference.sorted { $0.key < $1.key }
    #expect(map.map(\.key) == ordered.map(\.key))
    #expect(map.map(\.value) == ordered.map(\.value))
    #expect(Array(map.values) == ordered.map(\.value))
    #expect(map.keys == ordered.map(\.key))
    for row in (-5...next + 5).map(RowID.init) { #expect(map[row] == reference[row]) }
  }

  /// A store's rows, numbered from 1, are all in the array.
  @Test func denseRowsAreInTheArray() {
    var map = RowMap<Int>()
    map.reserveCapacity(adding: 10_000, through: RowID(10_000))
    for number in 1...10_000 { map[RowID(Int64(number))] = number }
    #expect(map.rowsInArray == 10_000)
    #expect(map.count == 10_000)
  }

  /// A far row stays beside the array, and moves in when the array grows to it.
  @Test func aFarRowMovesInWhenTheArrayReachesIt() {
    var map = RowMap<Int>()
    map[RowID(9_000)] = 9_000
    #expect(map.rowsInArray == 0)
    for number in 1...8_999 { map[RowID(Int64(number))] = number }
    #expect(map.rowsInArray == 9_000)
    #expect(map[RowID(9_000)] == 9_000)
    #expect(map.keys.suffix(2) == [RowID(8_999), RowID(9_000)])
  }

  /// With rows beside the array, it grows by doubling, so that they are looked over a few
  /// times as rows are added, not once a row (which made adding n rows cost n times them).
  @Test func rowsBesideTheArrayAreLookedOverAFewTimes() {
    var map = RowMap<Int>()
    for number in 1...20_000 { map[RowID(Int64(number))] = number }
    for number in 1...16_000 { map[RowID(Int64(number))] = nil }  // the array moves aside
    #expect(map.rowsInArray == 0)
    for number in 1...8_000 { map[RowID(Int64(number))] = number }
    #expect(map.count == 12_000)
    #expect(map.lookedOver < 20, "looked over \(map.lookedOver) times")
    let rows = (1...8_000).map { RowID(Int64($0)) } + (16_001...20_000).map { RowID(Int64($0)) }
    #expect(map.keys == rows)
  }

  /// When most rows are removed the array goes, so that it never holds many empty slots.
  @Test func aMostlyEmptyArrayMovesAside() {
    var map = RowMap<Int>()
    for number in 1...20_000 { map[RowID(Int64(number))] = number }
    for number in 1...16_000 { map[RowID(Int64(number))] = nil }
    #expect(map.rowsInArray == 0)
    #expect(map.count == 4_000)
    #expect(map.keys == (16_001...20_000).map { RowID(Int64($0)) })
    map[RowID(20_001)] = 1
    #expect(map[RowID(20_001)] == 1)
    #expect(map.count == 4_001)
  }
}
