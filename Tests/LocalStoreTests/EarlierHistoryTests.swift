import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A store read whole notes every line of history it applies (issue 26, item 5): with its
/// live rows' current lines they are the history section of an index written from it, with
/// no search of the file, even when no index describes the file (a copied or restored
/// folder, a rewritten store). At 100,000 items that search read the whole 75 MB file in
/// a first sync of a copied folder, 8% of its CPU. The section must list exactly what a
/// search lists.
@Suite struct EarlierHistoryTests {
  static func open(_ folder: URL, _ index: LocalStore.IndexPolicy, _ focus: LocalStore.Focus? = nil)
    throws -> LocalStore
  {
    try HistoryScanTests.open(folder, index, focus)
  }

  /// Every record's history through the index written from a whole read, against a search
  /// of the file; returns how many scans of the file and decoded lines writing it took.
  static func indexedAgreesWithSearched(_ folder: URL, keys: [RecordKey]) throws -> (Int, Int) {
    let store = try open(folder, DeferredIndexTests.eager)
    try? FileManager.default.removeItem(atPath: store.indexPath)
    let path = folder.path + "/" + LocalStore.fileName
    let (decoded, scans) = historyCensus.counting(path + " scans") {
      historyCensus.counting(path) { store.maintainIndex() }.count
    }
    #expect(FileManager.default.fileExists(atPath: store.indexPath))
    let focused = try open(folder, HistoryScanTests.never, LocalStore.Focus(keys: Set(keys)))
    #expect(SyncFocusTests.isUsed(focused))
    let whole = try open(folder, HistoryScanTests.never)
    for key in keys {
      let indexed = try focused.log(of: key)
      let searched = try whole.log(of: key)
      #expect(indexed.entries.map(\.sequence) == searched.entries.map(\.sequence), "\(key)")
      #expect(indexed.entries.map(\.record) == searched.entries.map(\.record), "\(key)")
      #expect(indexed.entries.map(\.tombstone) == searched.entries.map(\.tombstone), "\(key)")
    }
    return (scans, decoded)
  }

  @Test(arguments: 0..<6)
  func randomHistoriesNeedNoSearchAndListWhatASearchFinds(seed: Int) throws {
    try withTemporaryFolder { folder in
      try HistoryScanTests.saveItems(in: folder)
      var random = SeededRandom(seed: UInt64(seed))
      let writer = try Self.open(folder, HistoryScanTests.never)
      for round in 0..<8 {
        try writer.update("round \(round)") { content, transaction in
          for _ in 0..<25 {
            let key = SyncFocusTests.key(Int(random.next() % 300))
            let stored = content.rows(for: key).first
            switch random.next() % 6 {
            case 0, 1, 2:
              guard let stored else { continue }
              try transaction.replace(
                stored.row, with: SyncFocusTests.record(key, "Edit \(round) \(random.next())"))
            case 3:
              guard let stored else { continue }
              transaction.delete(stored, at: epoch)
            case 4:
              transaction.put(
                SyncFocusTests.conflict(key, random.next() % 1000, .open))
            default:
              guard stored == nil else { continue }
              try transaction.insert(SyncFocusTests.record(key, "Back \(round)"))
            }
          }
        }
      }
      let keys = (0..<300).map(SyncFocusTests.key)
      let (scans, decoded) = try Self.indexedAgreesWithSearched(folder, keys: keys)
      #expect(scans == 0)
      #expect(decoded == 0)
    }
  }

  /// More lines of history than rows: the store stops noting them (its memory stays bounded
  /// by the store), and the file is searched, decoding only the lines no live row holds.
  @Test func moreHistoryThanRowsIsSearchedInstead() throws {
    try withTemporaryFolder { folder in
      try HistoryScanTests.saveItems(in: folder)
      let writer = try Self.open(folder, HistoryScanTests.never)
      for round in 0..<5 {
        try writer.update("round \(round)") { content, transaction in
          for number in 0..<300 {
            let key = SyncFocusTests.key(number)
            let stored = try #require(content.rows(for: key).first)
            try transaction.replace(stored.row, with: SyncFocusTests.record(key, "E\(round)"))
          }
        }
      }
      let keys = [0, 1, 150, 299].map(SyncFocusTests.key)
      let (scans, decoded) = try Self.indexedAgreesWithSearched(folder, keys: keys)
      #expect(scans == 1)
      #expect(decoded == 1_500)  // the earlier puts; not the 300 current ones
    }
  }
}
