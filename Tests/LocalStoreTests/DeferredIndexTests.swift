import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Testing

/// ``LocalStore/deferringIndexWrites(_:)``: the index a save writes is built on another core
/// and written by the next save or when the scope ends, never lost, and always the index of
/// the store as it was saved.
@Suite struct DeferredIndexTests {
  static let eager = LocalStore.IndexPolicy(
    minimumRows: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30)

  static func open(_ folder: URL, _ focus: LocalStore.Focus? = nil) throws -> LocalStore {
    try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path),
      create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
      focus: focus, index: eager)
  }

  @Test func theIndexIsWrittenWhenTheScopeEndsAndDescribesTheLastSave() throws {
    try withTemporaryFolder { folder in
      _ = try Self.open(folder)  // created: its own saves do not know the settings' line
      let store = try Self.open(folder)
      let indexPath = store.indexPath
      try store.deferringIndexWrites {
        try store.update("the first items") { _, transaction in
          for number in 0..<300 {
            try transaction.insert(
              SyncFocusTests.record(SyncFocusTests.key(number), "Tube \(number)"))
          }
        }
        // Built on another core: not written yet, whatever the timing.
        #expect(!FileManager.default.fileExists(atPath: indexPath))
        // A second save writes the first build, then defers its own.
        try store.update("more items") { _, transaction in
          for number in 300..<400 {
            try transaction.insert(
              SyncFocusTests.record(SyncFocusTests.key(number), "Tube \(number)"))
          }
        }
        #expect(FileManager.default.fileExists(atPath: indexPath))
      }
      let keys = Set((0..<400).map(SyncFocusTests.key))
      let focused = try Self.open(folder, LocalStore.Focus(keys: keys))
      #expect(focused.openReport.index == .used(tailBytes: 0))
      let whole = try Self.open(folder)
      for key in keys {
        #expect(
          focused.content.rows(for: key).map(\.record) == whole.content.rows(for: key).map(\.record)
        )
      }
    }
  }

  @Test func aScopeThatThrowsStillWritesTheIndex() throws {
    try withTemporaryFolder { folder in
      _ = try Self.open(folder)
      let store = try Self.open(folder)
      #expect(throws: ModelError.self) {
        try store.deferringIndexWrites { () throws(ModelError) in
          try? store.update("the items") { _, transaction in
            for number in 0..<50 {
              try transaction.insert(
                SyncFocusTests.record(SyncFocusTests.key(number), "Tube \(number)"))
            }
          }
          throw ModelError("the sync failed after its pass")
        }
      }
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      let focused = try Self.open(folder, LocalStore.Focus(keys: [SyncFocusTests.key(7)]))
      #expect(focused.openReport.index == .used(tailBytes: 0))
    }
  }
}

/// The prefix the sync seal records (``LocalStore/describePrefix()``) is the same for every
/// open of the same file, with its probes spread through it in file order: it was once taken
/// in the rows' dictionary order, which differs from one open to the next.
@Suite struct DescribedPrefixTests {
  @Test func everyOpenOfAFileDescribesItsPrefixTheSameWay() throws {
    try withTemporaryFolder { folder in
      _ = try DeferredIndexTests.open(folder)
      let store = try DeferredIndexTests.open(folder)
      for number in 0..<200 {
        try store.update("one") { _, transaction in
          try transaction.insert(
            SyncFocusTests.record(SyncFocusTests.key(number), "Tube \(number)"))
        }
      }
      let described = try #require(store.describePrefix())
      for _ in 0..<5 {
        #expect(try DeferredIndexTests.open(folder).describePrefix() == described)
      }
      let offsets = described.probes.map(\.span.offset)
      #expect(offsets == offsets.sorted())
      #expect(described.probes.count == 18)  // the header, 16 rows, the last commit
      let size = try #require(
        FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
      #expect(offsets[16] > Int64(size) * 3 / 4, "the rows probed reach the end of the file")
    }
  }
}
