import Foundation
import JSONLines
import LocalStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The local index's digest section lets `sync status` rehash only the buckets whose records
/// changed, and whatever happened to the index or the store since a sync wrote it, the digest
/// is the one a full rebuild from the rows gives.
@Suite struct DigestSectionTests {
  /// Saves write the index from the first row on (the default waits for 2,000).
  static func open(_ folder: URL) throws -> DeviceFolder {
    var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
    options.index = LocalStore.IndexPolicy(minimumRows: 1)
    return try DeviceFolder.open(at: folder.path, options: options)
  }

  static func indexPath(_ folder: URL) -> URL {
    folder.appendingPathComponent("default.store.index")
  }

  /// A folder with `count` items and a location, and its index's digest section written.
  static func makeFolder(_ folder: URL, count: Int = 600) throws {
    _ = try open(folder)  // created: its own saves do not know the settings' line (no index)
    let device = try open(folder)
    try device.addLocation(Location(name: "Shop", createdAt: epoch))
    for index in 0..<count {
      try device.addItem(Item(name: "Tube \(index)", quantity: 10, createdAt: epoch))
    }
    try open(folder).writeDigestSection()
    #expect(try open(folder).folder.local?.indexedDigest() != nil)
  }

  /// The digest from the rows alone (the index moved away and back).
  static func fullRebuild(_ folder: URL) throws -> InventoryDigest {
    let path = indexPath(folder)
    let aside = folder.appendingPathComponent("index.aside")
    let moved = FileManager.default.fileExists(atPath: path.path)
    if moved { try FileManager.default.moveItem(at: path, to: aside) }
    defer { if moved { try? FileManager.default.moveItem(at: aside, to: path) } }
    let computed = try open(folder).computeDigest()
    #expect(!computed.usedSection)
    return computed.digest
  }

  static func expectSame(_ a: InventoryDigest, _ b: InventoryDigest) {
    #expect(a.overall == b.overall)
    #expect(a.perModel == b.perModel)
    #expect(a.counts == b.counts)
  }

  @Test func aFreshSectionIsUsedAndNothingIsRehashed() throws {
    try withTemporaryFolder { folder in
      try Self.makeFolder(folder)
      let computed = try Self.open(folder).computeDigest()
      #expect(computed.usedSection)
      #expect(computed.rehashed == 0)
      Self.expectSame(computed.digest, try Self.fullRebuild(folder))
    }
  }

  @Test func editsAfterTheSectionWasWrittenRehashOnlyTheirBuckets() throws {
    try withTemporaryFolder { folder in
      try Self.makeFolder(folder)
      let device = try Self.open(folder)
      try device.consume("Tube 1")
      _ = try device.editItem("Tube 2") { $0.notes = "Top shelf" }
      _ = try device.deleteItem("Tube 3")
      try device.addItem(Item(name: "Comb", quantity: 1, createdAt: epoch))
      let computed = try Self.open(folder).computeDigest()
      #expect(computed.usedSection)
      #expect(computed.rehashed >= 1 && computed.rehashed <= 4, "\(computed.rehashed)")
      Self.expectSame(computed.digest, try Self.fullRebuild(folder))
    }
  }

  @Test func aSectionBehindAnotherProcessesSavesStillGivesTheExactDigest() throws {
    try withTemporaryFolder { folder in
      try Self.makeFolder(folder)
      let reader = try Self.open(folder)
      // Another process saves while this one has the folder open.
      let other = try Self.open(folder)
      for index in 10..<40 { try other.consume("Tube \(index)") }
      _ = try other.deleteItem("Tube 50")
      try reader.folder.refresh()
      let computed = reader.computeDigest()
      #expect(computed.usedSection)
      Self.expectSame(computed.digest, try Self.fullRebuild(folder))
    }
  }

  @Test func aSectionFromBeforeACompactionStillGivesTheExactDigest() throws {
    try withTemporaryFolder { folder in
      try Self.makeFolder(folder)
      let device = try Self.open(folder)
      try device.consume("Tube 7")
      try device.folder.local?.compact()
      let computed = try Self.open(folder).computeDigest()
      #expect(computed.usedSection)
      Self.expectSame(computed.digest, try Self.fullRebuild(folder))
    }
  }

  @Test func reusingAStaleDigestEqualsAFullRebuildForRandomChanges() throws {
    for seed in TestEnvironment.seeds(default: 5) {
      print("DigestSectionTests seed \(seed) (STASH_SEED=\(seed) replays it)")
      var random = SeededRandom(seed: seed)
      var entries = [RecordKey: InventoryDigest.Entry]()
      var keys = [RecordKey]()
      var step = 0
      func entry(tombstone: Bool) -> InventoryDigest.Entry {
        step += 1
        return .init(
          isTombstone: tombstone, hash: SnapshotHash(digest: SHA256.hash("\(seed) \(step)")))
      }
      let models = ["item", "location", "reminder"]
      for _ in 0..<400 {
        let key = RecordKey(
          model: models[Int(random.next() % 3)], id: RecordID.random(using: &random))
        keys.append(key)
        entries[key] = entry(tombstone: random.next() % 4 == 0)
      }
      let bytes = try #require(InventoryDigest(entries).sectionBytes())
      for _ in 0..<Int(random.next() % 30) {
        let key = keys[Int(random.next() % UInt64(keys.count))]
        switch random.next() % 3 {
        case 0: entries[key] = nil
        case 1: entries[key] = entry(tombstone: true)
        default:
          let new = RecordKey(model: "item", id: RecordID.random(using: &random))
          keys.append(new)
          entries[new] = entry(tombstone: false)
        }
      }
      if random.next() % 2 == 0 { entries = entries.filter { $0.key.model != "reminder" } }
      let (reused, _) = try #require(
        InventoryDigest.reusing(section: bytes, for: entries))
      let full = InventoryDigest(entries)
      #expect(reused.overall == full.overall, "seed \(seed)")
      #expect(reused.perModel == full.perModel, "seed \(seed)")
      #expect(reused.counts == full.counts, "seed \(seed)")
    }
  }
}

/// A sync computes the digest section and the local index on other cores while it exports
/// (``SyncFolder/sync(progress:)``): both describe the store as the sync left it.
@Suite struct DerivedFilesAfterSyncTests {
  @Test func aSecondDevicesSyncLeavesACurrentDigestAndAUsableIndex() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let (a, b) = (root.appendingPathComponent("a"), root.appendingPathComponent("b"))
      for folder in [a, b] {
        try DigestSectionTests.open(folder).folder.enableSync(cloud: cloud.path)
      }
      let first = try DigestSectionTests.open(a)
      try first.folder.local!.update("the items") { _, transaction in
        for index in 0..<2500 {
          try transaction.insert(Item(name: "Tube \(index)", quantity: 3, createdAt: epoch).record)
        }
      }
      _ = try first.folder.sync()
      let second = try DigestSectionTests.open(b)
      let report = try second.folder.sync()
      #expect(report.appliedLocally == 2500)
      // The digest section was computed from the store as the pass left it, not as it was
      // opened.
      let computed = try DigestSectionTests.open(b).computeDigest()
      #expect(computed.usedSection)
      #expect(computed.rehashed == 0)
      DigestSectionTests.expectSame(computed.digest, try DigestSectionTests.fullRebuild(b))
      #expect(computed.digest.counts["item"] == 2500)
      // The index (2,500 rows: over the default's 2,000) was written and describes the store.
      let store = try LocalStore.open(
        folder: b.path, schemas: InventorySchemas.registry, lock: FolderLock(folder: b.path),
        focus: LocalStore.Focus([.init(model: "item", text: "Tube 1234")]))
      #expect(store.openReport.index == .used(tailBytes: 0))
      #expect(
        store.content.rows.values.contains { $0.record[field: "name"] == .string("Tube 1234") })
    }
  }
}
