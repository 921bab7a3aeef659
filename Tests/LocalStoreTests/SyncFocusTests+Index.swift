import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The index a key focus reads: damage falls back to a whole open, lookups stay a few blocks,
/// and a one-record command's save keeps the other kinds' entries right.
extension SyncFocusTests {
  /// A block of the index holding a checkpoint's entry, damaged: a focus on that key reads
  /// the store in full, and the answer is a whole open's.
  @Test func aDamagedBlockHoldingACheckpointEntryFallsBackToAWholeOpen() throws {
    try withTemporaryFolder { folder in
      var random = SeededRandom(seed: 3)
      try Self.makeStore(folder, count: 20, &random)
      // A key whose only trace is a checkpoint: its id is in the index once, in that entry.
      let only = Self.key(500)
      try Self.open(folder, policy: Self.eager).update("a checkpoint") { _, transaction in
        transaction.setCheckpoint(only, to: Checkpoint(hash: Self.hash(500), isTombstone: true))
      }
      let url = URL(fileURLWithPath: try Self.open(folder).indexPath)
      var bytes = [UInt8](try Data(contentsOf: url))
      let needle = [UInt8(only.id.rawValue.utf8.count)] + Array(only.id.rawValue.utf8)
      let found = (0..<(bytes.count - needle.count)).filter {
        bytes[$0..<($0 + needle.count)].elementsEqual(needle)
      }
      try #require(found.count == 1)
      let whole = try Self.open(folder).content
      #expect(whole.checkpoints[only] != nil)
      #expect(try Self.open(folder, keys: [only]).content.checkpoints[only] != nil)
      bytes[found[0] + 10] ^= 0x01
      try Data(bytes).write(to: url)
      let focused = try Self.open(folder, keys: [only])
      #expect(!Self.isUsed(focused))
      #expect(focused.content.isComplete)
      #expect(KeyState(focused.content, only) == KeyState(whole, only))
    }
  }

  /// A store of 4,000 items, each with a checkpoint, and 4,000 tombstones: a lookup by name
  /// reads a few dozen of the index's 200 and more blocks (the id and name tables list rows
  /// only), and so does a focus on a record key.
  @Test func lookupsReadAFewBlocksOfAnIndexFullOfOtherKinds() throws {
    try withTemporaryFolder { folder in
      _ = try Self.open(folder)
      try Self.open(folder, policy: Self.eager).update("the items") { _, transaction in
        transaction.bindCheckpoints(to: StoreID("5e6f7a8b-0000-4000-8000-000000000003")!)
        for number in 0..<4000 {
          _ = try transaction.insert(Self.record(Self.key(number), "Tube \(number)"))
          transaction.setCheckpoint(
            Self.key(number), to: Checkpoint(hash: Self.hash(UInt64(number)), isTombstone: false))
          let gone = Self.key(10_000 + number)
          transaction.putTombstone(
            Tombstone(model: "item", id: gone.id, deletedAt: epoch, deletedHash: Self.hash(1)))
        }
      }
      try Self.open(folder, policy: Self.eager).update("a touch") { _, transaction in
        transaction.setCheckpoint(Self.key(1), to: nil)
      }
      let blocks =
        try FileManager.default.attributesOfItem(
          atPath: folder.path + "/default.store.index")[.size] as! Int / 4096
      func indexReads(_ focus: LocalStore.Focus) throws -> (reads: Int, content: LocalContent) {
        let watched = ScriptedFileSystem()
        let store = try LocalStore.open(
          folder: folder.path, schemas: InventorySchemas.registry,
          lock: FolderLock(folder: folder.path, fileSystem: watched), focus: focus,
          index: Self.once, fileSystem: watched)
        #expect(Self.isUsed(store))
        let reads = watched.calls.filter {
          $0.operation == .read && $0.path.hasSuffix(".index")
        }.count
        return (reads, store.content)
      }
      let byName = try indexReads(LocalStore.Focus([.init(model: "item", text: "Tube 2345")]))
      let byKey = try indexReads(LocalStore.Focus(keys: [Self.key(2345), Self.key(12_345)]))
      print("index of \(blocks) blocks: \(byName.reads) reads by name, \(byKey.reads) by key")
      #expect(blocks > 200)
      #expect(byName.reads < 60)
      #expect(byKey.reads < 80)
      #expect(byName.content.rows.count == 1)
      #expect(byKey.content.checkpoints[Self.key(2345)] != nil)
      #expect(byKey.content.tombstones[Self.key(12_345)] != nil)
    }
  }

  /// A one-record command's store (focused on a lookup, not on keys) that deletes a record
  /// and settles its conflict writes the index again with the tombstone and without the
  /// conflict: a later focus on that key reads both from the index alone.
  @Test func aLookupFocusedSaveKeepsTheIndexsOtherKindsRight() throws {
    try withTemporaryFolder { folder in
      var random = SeededRandom(seed: 21)
      try Self.makeStore(folder, count: 20, &random)
      let whole = try Self.open(folder).content
      let key = try #require(
        (0..<20).map(Self.key).first {
          whole.rows(for: $0).count == 1 && whole.tombstones[$0] == nil
        })
      let name = try #require(whole.rows(for: key).first?.record[field: "name"])
      guard case .string(let text) = name else { throw ModelError("no name") }
      let focused = try LocalStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path),
        focus: LocalStore.Focus([.init(model: "item", text: text)]), index: Self.eager)
      #expect(Self.isUsed(focused))
      try focused.update("the delete") { content, transaction in
        let row = try #require(content.rows(for: key).first)
        transaction.delete(row, at: epoch)
        transaction.setCheckpoint(key, to: Checkpoint(hash: Self.hash(3), isTombstone: true))
        transaction.put(Self.conflict(key, 4242, .open))
      }
      try focused.update("the settling") { content, transaction in
        #expect(content.openConflicts(for: key).count == 1)
        for var open in content.openConflicts(for: key) {
          open.state = .resolved
          open.resolution = ConflictResolution(
            choice: "agreed", at: epoch, by: Self.device, result: nil)
          transaction.put(open)
        }
      }
      let byKey = try Self.open(folder, keys: [key])
      #expect(byKey.openReport.index == .used(tailBytes: 0))
      #expect(byKey.content.tombstones[key] != nil)
      #expect(byKey.content.rows(for: key).isEmpty)
      #expect(byKey.content.openConflicts(for: key).isEmpty)
      try Self.expectSameState(folder, Set((0..<22).map(Self.key)), "after the delete")
    }
  }

  /// A stale index (from before a compaction) is not used for a focus on keys: the content is
  /// a whole open's. (Damaged, newer, older, empty and another store's indexes: the one suite
  /// of every derived file, `DerivedFileTests`.)
  @Test func aKeyFocusOnAStaleIndexReadsTheWholeStore() throws {
    try withTemporaryFolder { folder in
      var random = SeededRandom(seed: 5)
      try Self.makeStore(folder, count: 20, &random)
      try Self.open(folder).compact()
      let keys = Set((0..<22).map(Self.key))
      let focused = try Self.open(folder, keys: keys)
      #expect(!Self.isUsed(focused), "\(focused.openReport.index)")
      #expect(focused.content.isComplete)
      let whole = try Self.open(folder).content
      for key in keys.sorted() {
        #expect(KeyState(focused.content, key) == KeyState(whole, key), "\(key)")
      }
    }
  }
}
