import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Testing

@testable import LocalStore
@testable import Stash

/// A copied or restored device folder takes an identity of its own at its first write, which
/// rewrites both stores into new files. The indexes on disk then describe the files they
/// replaced: written before the rewrite and not after, they were ignored by every command
/// until the next save (at 100,000 items, each `show` read the whole store: 0.48 s and 87 MB
/// instead of 10 ms and 17 MB).
@Suite struct CopiedFolderIndexTests {
  @Test func aCopysFirstWriteLeavesIndexesOfItsNewFiles() throws {
    try withTemporaryFolder { root in
      let original = try DerivedFileTests.syncedFolder(root, "a")
      let copy = root.appendingPathComponent("a2")
      try FileManager.default.copyItem(at: original, to: copy)
      let notices = LockedBox([String]())
      var options = DerivedFileTests.options
      options.notices = { notice in notices.withLock { $0.append(notice.message) } }
      let device = try DeviceFolder.open(at: copy.path, options: options)
      try device.addItem(Item(name: "Gloves", quantity: 2, createdAt: epoch))
      let told = notices.withLock { $0 }
      #expect(told.contains { $0.contains("was copied or restored") }, "\(told)")

      var focusing = DerivedFileTests.options
      focusing.focus(on: [(model: "item", text: "Gloves")])
      let focused = try DeviceFolder.open(at: copy.path, options: focusing)
      let use = try #require(focused.local?.openReport.index)
      guard case .used = use else {
        Issue.record("the local index was not used: \(use)")
        return
      }
      #expect(try focused.item("Gloves").quantity == 2)
      let key = RecordKey(model: "item", id: try focused.item("Gloves").id)
      let mirror = try MirrorStore.open(
        folder: copy.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: copy.path), focus: [key])
      let readWhole = mirror.content.isComplete
      #expect(!readWhole, "the mirror's index was not used")
    }
  }
}
