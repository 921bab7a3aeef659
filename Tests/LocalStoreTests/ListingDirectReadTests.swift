import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A listing (`list`, `export`), a lookup through the index and a focused open read each
/// row's line straight from its bytes, as a whole open does (`Log.change(at:in:)`, issue 26,
/// item 5): `list` at 100,000 items parsed every row's line into a JSON tree.
@Suite struct ListingDirectReadTests {
  /// A model of this suite alone, so that the census counts only its lines.
  static let schema = try! Schema(
    model: "listing-direct-read",
    fields: [FieldSpec("name", .string), FieldSpec("note", .optional(.string))],
    lookup: ["name"])
  static let registry = try! SchemaRegistry([schema])
  static let count = 300

  static func open(
    _ folder: URL, _ focus: LocalStore.Focus? = nil,
    policy: LocalStore.IndexPolicy = DeferredIndexTests.eager
  ) throws -> LocalStore {
    try LocalStore.open(
      folder: folder.path, schemas: registry, lock: FolderLock(folder: folder.path),
      create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
      focus: focus, index: policy)
  }

  static func record(_ number: Int) -> Record {
    let id = RecordID(String(format: "5e1ec7ed-0000-4000-8000-%012lx", number))!
    return try! Record(
      schema: schema, id: id,
      values: [.string("Tube \(number) \"é\""), number % 2 == 0 ? .none : .string("n\n\(number)")])
  }

  @Test func listedRowsAreReadFromTheirBytesAsAWholeOpenReadsThem() throws {
    try withTemporaryFolder { folder in
      let store = try Self.open(folder)
      try store.update("the things") { _, transaction in
        for number in 0..<Self.count { try transaction.insert(Self.record(number)) }
      }
      let reopened = try Self.open(folder)
      reopened.maintainIndex()
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      let whole = try Self.open(folder).content
      let focused = try Self.open(folder, LocalStore.Focus(keys: []))
      #expect(SyncFocusTests.isUsed(focused), "\(focused.openReport.index)")
      let listed = try #require(focused.listedRows(of: Self.schema.model))
      #expect(listed.count == Self.count)
      let (rows, trees) = try lineTreeCensus.counting(Self.schema.model) {
        try listed.map { try focused.read($0) }
      }
      #expect(trees == 0, "\(trees) line trees for \(Self.count) rows")
      for row in rows {
        #expect(whole.rows[row.row] == row)
      }
      // A focused open reads the rows of its keys the same way.
      let keys = Set((0..<10).map { Self.record($0 * 7).key })
      let (opened, openTrees) = try lineTreeCensus.counting(Self.schema.model) {
        try Self.open(folder, LocalStore.Focus(keys: keys))
      }
      #expect(openTrees == 0, "\(openTrees) line trees for \(keys.count) rows")
      #expect(SyncFocusTests.isUsed(opened))
      for key in keys {
        #expect(opened.content.rows(for: key) == whole.rows(for: key))
      }
    }
  }

  /// The lines saved after the index (up to 256 KiB of them: the state most one-record
  /// commands meet) are read as a whole open reads them, straight from their bytes and once:
  /// each was parsed into a tree and decoded twice, once to find the records it names and
  /// once to apply it, which at 100,000 items was most of what `show` cost.
  @Test func theLinesAfterTheIndexAreReadFromTheirBytesOnce() throws {
    try withTemporaryFolder { folder in
      let store = try Self.open(folder)
      try store.update("the things") { _, transaction in
        for number in 0..<Self.count { try transaction.insert(Self.record(number)) }
      }
      try Self.open(folder).maintainIndex()
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      // Saves that leave the index behind: the lines after its prefix.
      let later = try Self.open(folder, policy: SyncFocusTests.once)
      for number in 0..<20 {
        try later.update("an edit") { content, transaction in
          let row = try #require(content.rows(for: Self.record(number).key).first)
          try transaction.replace(
            row.row,
            with: Record(
              schema: Self.schema, id: row.record.id,
              values: [.string("Edited \(number)"), .none]))
        }
      }
      let keys: Set<RecordKey> = [Self.record(3).key, Self.record(250).key]
      let (opened, trees) = try lineTreeCensus.counting(Self.schema.model) {
        try Self.open(folder, LocalStore.Focus(keys: keys), policy: SyncFocusTests.once)
      }
      #expect(SyncFocusTests.isUsed(opened), "\(opened.openReport.index)")
      #expect(trees == 0, "\(trees) line trees for 20 lines after the index")
      let whole = try Self.open(folder, policy: SyncFocusTests.once).content
      for key in keys {
        #expect(opened.content.rows(for: key) == whole.rows(for: key))
      }
      #expect(
        opened.content.rows(for: Self.record(3).key).first?.record.values.first
          == .string("Edited 3"))
    }
  }

  /// A record's history reads its lines, before the index and after it, straight from their
  /// bytes as an open reads them: each of its puts was parsed into a tree, so that `history`
  /// of an item used a few hundred times cost far more than `show` of it.
  @Test func aRecordsHistoryReadsItsLinesFromTheirBytes() throws {
    try withTemporaryFolder { folder in
      let store = try Self.open(folder)
      try store.update("the things") { _, transaction in
        for number in 0..<Self.count { try transaction.insert(Self.record(number)) }
      }
      let key = Self.record(3).key
      func edit(_ store: LocalStore, _ round: Int) throws {
        try store.update("an edit") { content, transaction in
          let row = try #require(content.rows(for: key).first)
          try transaction.replace(
            row.row,
            with: Record(
              schema: Self.schema, id: key.id, values: [.string("Edited \(round)"), .none]))
        }
      }
      for round in 0..<10 { try edit(store, round) }
      try Self.open(folder).maintainIndex()
      let later = try Self.open(folder, policy: SyncFocusTests.once)
      for round in 10..<20 { try edit(later, round) }
      let focused = try Self.open(
        folder, LocalStore.Focus(keys: [key]), policy: SyncFocusTests.once)
      #expect(SyncFocusTests.isUsed(focused), "\(focused.openReport.index)")
      let (log, trees) = try lineTreeCensus.counting(Self.schema.model) {
        try focused.log(of: key)
      }
      #expect(trees == 0, "\(trees) line trees for the record's 21 lines")
      #expect(log.decoded == 21)
      let names = log.entries.map { $0.record?.values.first }
      #expect(names == [Self.record(3).values.first] + (0..<20).map { .string("Edited \($0)") })
    }
  }
}
