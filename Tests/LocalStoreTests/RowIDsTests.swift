import Foundation
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `RowIDs` holds the rows of a record key inline when there is one (issue 26, item 4: an
/// array per key cost a whole-store read an allocation and 48 bytes per record). It must
/// answer exactly as the array it replaces.
@Suite struct RowIDsTests {
  /// Random appends and removals, as a store files and unfiles a key's rows, against an array.
  @Test(arguments: 0..<4)
  func answersAsAnArray(seed: Int) {
    var random = SeededRandom(seed: UInt64(seed))
    var rows = RowIDs()
    var reference = [RowID]()
    for _ in 0..<5_000 {
      if reference.isEmpty || Int.random(in: 0..<100, using: &random) < 55 {
        let row = RowID(Int64.random(in: 1...12, using: &random))
        rows.append(row)
        reference.append(row)
      } else {
        let gone = reference.randomElement(using: &random)!
        rows.removeAll { $0 == gone }
        reference.removeAll { $0 == gone }
      }
      #expect(Array(rows) == reference)
      #expect(rows.count == reference.count && rows.isEmpty == reference.isEmpty)
      #expect(rows.first == reference.first && rows.min() == reference.min())
      #expect(rows == RowIDs(reference) && rows.hashValue == RowIDs(reference).hashValue)
      #expect(rows.holdsArray == (reference.count >= 2), "one row or none is held inline")
    }
    let literal: RowIDs = [RowID(3)]
    #expect(Array(literal) == [RowID(3)] && !literal.holdsArray)
    #expect(RowIDs().isEmpty && !RowIDs().holdsArray)
  }

  /// A store read whole keeps each key's one row inline; only a duplicate id holds an array.
  @Test func aStoreReadWholeHoldsAnArrayOnlyForADuplicate() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      let tubes = (0..<300).map { item("Tube \($0)") }
      try store.update("the import") { _, transaction throws(ModelError) in
        for tube in tubes { try transaction.insert(tube.record) }
      }
      var twin = tubes[7]
      twin.quantity = 1
      try store.insert(twin.record)

      let reopened = try openStore(folder)
      let content = reopened.content
      #expect(content.rowsByKey.count == 300)
      for (key, rows) in content.rowsByKey {
        if key == twin.record.key {
          #expect(rows.count == 2 && rows.holdsArray)
          #expect(content.rows(for: key).map(\.record) == [tubes[7].record, twin.record])
        } else {
          #expect(rows.count == 1 && !rows.holdsArray, "\(key)")
        }
      }
      #expect(content.row(for: twin.record.key) == nil, "a duplicate has no one row")
      #expect(content.row(for: tubes[8].record.key)?.record == tubes[8].record)
      expectInvariants(reopened)
    }
  }
}
