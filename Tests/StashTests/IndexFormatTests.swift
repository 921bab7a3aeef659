import Foundation
import JSONLines
import LocalStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The index's format versions: an index of an older format (kept under
/// `Fixtures/formats/index-1` and `index-2`) is never used, the answer comes from the store,
/// and the next save writes the current format.
@Suite struct IndexFormatTests {
  /// The fixture folder `formats/index-<version>` copied into `folder`, its index re-pointed
  /// at the copy's store file (an index names the file it describes by device and inode) with
  /// its checksum made valid again: only its format version stands between it and use.
  ///
  /// Both formats start alike: magic (18 bytes), version (4), a length (8) and a CRC-32 (4),
  /// then the store id (a UInt16 length and its bytes) and the store file's device and inode
  /// (UInt64 each). Format 1's CRC-32 covers everything after it, format 2's only the head,
  /// whose length the fixed part gives.
  static func copyFixture(version: Int, to folder: URL) throws {
    for name in ["default.store", "default.store.index"] {
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/index-\(version)/\(name)"),
        to: folder.appendingPathComponent(name))
    }
    let indexURL = folder.appendingPathComponent("default.store.index")
    var bytes = [UInt8](try Data(contentsOf: indexURL))
    var status = stat()
    #expect(stat(folder.appendingPathComponent("default.store").path, &status) == 0)
    let idLength = Int(bytes[34]) | Int(bytes[35]) << 8
    let deviceAt = 36 + idLength
    withUnsafeBytes(of: UInt64(status.st_dev).littleEndian) {
      bytes.replaceSubrange(deviceAt..<(deviceAt + 8), with: $0)
    }
    withUnsafeBytes(of: UInt64(status.st_ino).littleEndian) {
      bytes.replaceSubrange((deviceAt + 8)..<(deviceAt + 16), with: $0)
    }
    let headLength = bytes[22..<30].reversed().reduce(0) { $0 << 8 | Int($1) }
    let covered = version == 1 ? Array(bytes[34...]) : Array(bytes[34..<(34 + headLength)])
    withUnsafeBytes(of: CRC32.checksum(covered).littleEndian) {
      bytes.replaceSubrange(30..<34, with: $0)
    }
    try Data(bytes).write(to: indexURL)
  }

  @Test func aFormat1IndexIsNotUsedAndTheNextSaveWritesTheCurrentFormat() throws {
    try withTemporaryFolder { folder in
      try Self.copyFixture(version: 1, to: folder)
      let indexURL = folder.appendingPathComponent("default.store.index")
      #expect(try Data(contentsOf: indexURL)[18] == 1)
      let focused = try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")])
      #expect(!IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(focused)))
      #expect(try focused.item("Tube 5").quantity == 10)
      try IndexedOpenTests.expectSameAnswers(folder, ["Tube 5", "Tube 0", "tube 11"])
      try focused.consume("Tube 5")
      // The fixture's store is of local format 2: that save rewrote it as the current format
      // (a new file, which no index describes yet); the next save writes the index.
      try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")]).consume("Tube 5")
      #expect(try Data(contentsOf: indexURL)[18] == 9)
      let again = try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")])
      #expect(IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(again)))
      #expect(try again.item("Tube 5").quantity == 8)
    }
  }

  /// Format 2 held rows only: a focus on record keys would miss their tombstones and
  /// checkpoints, so it is ignored and the next save writes the current format.
  @Test func aFormat2IndexIsNotUsedAndTheNextSaveWritesTheCurrentFormat() throws {
    try withTemporaryFolder { folder in
      try Self.copyFixture(version: 2, to: folder)
      let indexURL = folder.appendingPathComponent("default.store.index")
      #expect(try Data(contentsOf: indexURL)[18] == 2)
      let focused = try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")])
      #expect(!IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(focused)))
      #expect(try focused.item("Tube 5").quantity == 9)
      try IndexedOpenTests.expectSameAnswers(folder, ["Tube 5", "Tube 0", "Tube 11", "tube 3"])
      let deleted = try #require(
        IndexedOpenTests.open(folder).folder.content?.tombstones.keys.first { $0.model == "item" })
      try focused.consume("Tube 5")
      #expect(try Data(contentsOf: indexURL)[18] == 9)
      var options = DeviceFolder.Options(
        deviceName: "test-device", clock: { epoch }, access: .reading)
      options.index = IndexedOpenTests.eager
      options.focus = LocalStore.Focus(keys: [deleted])
      let again = try DeviceFolder.open(at: folder.path, options: options)
      #expect(IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(again)))
      #expect(again.folder.content?.tombstones[deleted] != nil)
    }
  }

  /// `Fixtures/formats/index-5` (12 items and a location; written by the format-5 code, its
  /// index in the one derived-file container, before the field table) re-pointed at the copy's
  /// store file like the others: the container's head holds the body's length and block
  /// count, the blocks' CRC-32s, then the source (a kind byte, the store id with a `UInt16`
  /// length, a `UInt8` 1, then device and inode), and its CRC-32 covers the whole head.
  /// `Fixtures/formats/index-6` (the same store, its index written by the format-6 code, with
  /// the field table, before the open conflicts' count and the status section) and
  /// `Fixtures/formats/index-7` (written by the format-7 code from a copy of index-6's store
  /// after two saves that consumed 'Tube 0': its status section lists no stale records) and
  /// `Fixtures/formats/index-8` (written by the format-8 code from a copy of index-7's store,
  /// synced, with a consume between two syncs and one after: a digest section whose entries
  /// are in one run by id, and a status section) are copied the same way (`version`: 6, 7,
  /// 8).
  static func copyFormat5Fixture(to folder: URL, version: Int = 5) throws {
    for name in ["default.store", "default.store.index"] {
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/index-\(version)/\(name)"),
        to: folder.appendingPathComponent(name))
    }
    try repoint(
      index: folder.appendingPathComponent("default.store.index"),
      at: folder.appendingPathComponent("default.store"), tag: "stash.local.index")
  }

  /// Re-points a derived file copied from a fixture at `store`, the copy of its source: the
  /// container (after its `tag`, a newline and the format version) has the head's length and
  /// CRC-32, then the head with the body's length and block count, the blocks' CRC-32s, and
  /// the source (a kind byte, the store id with a `UInt16` length, a `UInt8` 1, then device
  /// and inode); the CRC-32 covers the whole head.
  static func repoint(index indexURL: URL, at store: URL, tag: String) throws {
    var bytes = [UInt8](try Data(contentsOf: indexURL))
    let base = tag.utf8.count - 17
    func integer(at offset: Int, _ count: Int) -> Int {
      bytes[(base + offset)..<(base + offset + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
    var status = stat()
    #expect(stat(store.path, &status) == 0)
    let source = 50 + 4 * integer(at: 42, 8)
    let deviceAt = base + source + 4 + integer(at: source + 1, 2)
    withUnsafeBytes(of: UInt64(status.st_dev).littleEndian) {
      bytes.replaceSubrange(deviceAt..<(deviceAt + 8), with: $0)
    }
    withUnsafeBytes(of: UInt64(status.st_ino).littleEndian) {
      bytes.replaceSubrange((deviceAt + 8)..<(deviceAt + 16), with: $0)
    }
    let head = Array(bytes[(base + 34)..<(base + 34 + integer(at: 22, 8))])
    withUnsafeBytes(of: CRC32.checksum(head).littleEndian) {
      bytes.replaceSubrange((base + 30)..<(base + 34), with: $0)
    }
    try Data(bytes).write(to: indexURL)
  }

  /// Format 5 has no field table (a query would miss every row), format 6 no open conflicts'
  /// count and no status section (`sync status` would read it as saying there is no
  /// conflict), format 7's status section has no stale records (it would be read as one
  /// that lists none), and format 8's digest section is not grouped by bucket (`sync status`
  /// would misread it): each is ignored (whatever else in it still describes the store), the
  /// answers come from the store, and the next save writes the current format.
  @Test(arguments: [5, 6, 7, 8])
  func anOlderIndexIsNotUsedAndTheNextSaveWritesTheCurrentFormat(version: Int) throws {
    try withTemporaryFolder { folder in
      try Self.copyFormat5Fixture(to: folder, version: version)
      let indexURL = folder.appendingPathComponent("default.store.index")
      #expect(try Data(contentsOf: indexURL)[18] == UInt8(version))
      let focused = try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")])
      #expect(!IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(focused)))
      #expect(focused.folder.content?.isComplete == true)
      try IndexedOpenTests.expectSameAnswers(folder, ["Tube 5", "Tube 0", "tube 11", "Shop"])
      try focused.consume("Tube 5")
      #expect(try Data(contentsOf: indexURL)[18] == 9)
      // A copied folder takes a device identity of its own at its first save, which rewrites
      // the store (a new file, which no index describes yet); the next save writes the index.
      try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")]).consume("Tube 5")
      let again = try IndexedOpenTests.open(folder, focus: [("item", "Tube 5")])
      #expect(IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(again)))
      #expect(try again.item("Tube 5").quantity == 8)
    }
  }

  /// Format 2 checks each block of 4 KiB as it reads it: a damaged block the lookup reads
  /// makes it read the store in full, and no lookup's answer changes.
  @Test func aDamagedBlockIsFoundWhenALookupReadsItAndNeverChangesAnAnswer() throws {
    try withTemporaryFolder { folder in
      try IndexedOpenTests.makeIndexedStore(folder, count: 300)
      let url = URL(fileURLWithPath: IndexedOpenTests.indexPath(folder))
      var bytes = [UInt8](try Data(contentsOf: url))
      #expect(bytes.count > 4 * 4096)  // several blocks
      // The entry of 'Tube 150' holds its name's search form after a two-byte length.
      let needle = [8, 0] + Array("tube 150".utf8)
      let at = try #require(
        (0..<(bytes.count - needle.count)).first {
          bytes[$0..<($0 + needle.count)].elementsEqual(needle)
        })
      bytes[at + 3] ^= 0x01
      try Data(bytes).write(to: url)
      let damaged = try IndexedOpenTests.open(folder, focus: [("item", "Tube 150")])
      #expect(!IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(damaged)))
      try IndexedOpenTests.expectSameAnswers(folder, ["Tube 150", "Tube 3", "Tube 299", "tube 1"])
    }
  }
}
