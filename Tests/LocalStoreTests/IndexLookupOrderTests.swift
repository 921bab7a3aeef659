import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Testing

/// The index's tables are sorted by a fast key (a model's rank and a key's first eight
/// bytes) that must order them exactly as the reader's byte-wise binary search expects: names
/// and ids that share their first eight bytes, are prefixes of one another, differ in case or
/// only in how an accent is encoded are all found through the index.
@Suite struct IndexLookupOrderTests {
  static let names = [
    "Koleston 7/1", "Koleston 7/10", "koleston 7/1", "KOLESTON 7/1", "Koleston", "Kolesto",
    "Koleston 7/1 extra", "Crème", "Cre\u{301}me", "CRÈME", "Ärger", "a", "Zz", "Wella 10/0",
    "Wella 10/00", "Wella 1", "ñandú", "Ñandú", "日本語", "Koleston 7/2",
  ]

  @Test func everyNameAndIdIsFoundThroughTheIndex() throws {
    try withTemporaryFolder { folder in
      let eager = LocalStore.IndexPolicy(
        minimumRows: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30)
      func open(_ focus: LocalStore.Focus? = nil) throws -> LocalStore {
        try LocalStore.open(
          folder: folder.path, schemas: InventorySchemas.registry,
          lock: FolderLock(folder: folder.path),
          create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
          focus: focus, index: eager)
      }
      _ = try open()  // created: its own saves do not know the settings' line
      try open().update("the items") { _, transaction in
        for (number, name) in Self.names.enumerated() {
          // Ids sharing their first eight (and more) bytes, and an id that is a prefix's length.
          try transaction.insert(SyncFocusTests.record(SyncFocusTests.key(number), name))
        }
      }
      let whole = try open().content
      for name in Self.names {
        let focused = try open(LocalStore.Focus([.init(model: "item", text: name)]))
        #expect(SyncFocusTests.isUsed(focused), "\(focused.openReport.index)")
        let expected = Set(
          whole.rows.values.filter { row in
            guard case .string(let text)? = row.record[field: "name"] else { return false }
            return text.lowercased() == name.lowercased()
          }.map(\.record.key))
        let found = Set(focused.content.rows.values.map(\.record.key))
        #expect(!expected.isEmpty)
        #expect(expected.isSubset(of: found), "\(name): \(expected) not all in \(found)")
      }
      for number in Self.names.indices {
        let key = SyncFocusTests.key(number)
        let focused = try open(LocalStore.Focus(keys: [key]))
        #expect(SyncFocusTests.isUsed(focused))
        #expect(focused.content.rows(for: key).count == 1, "\(key)")
      }
    }
  }
}
