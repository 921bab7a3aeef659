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

  static func open(_ folder: URL, _ focus: LocalStore.Focus? = nil) throws -> LocalStore {
    try LocalStore.open(
      folder: folder.path, schemas: registry, lock: FolderLock(folder: folder.path),
      create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
      focus: focus, index: DeferredIndexTests.eager)
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
}
