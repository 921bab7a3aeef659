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
