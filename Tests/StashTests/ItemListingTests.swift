import Foundation
import LocalStore
import Stash
import StashModel
import StashTestSupport
import Testing

/// `stash list` reads the items one at a time through the local store's index (issue 26,
/// item 4): the listing holds each item's row, id, name and line, never the records, and
/// gives the items `DeviceFolder.items()` gives a folder read whole, in the same order.
@Suite struct ItemListingTests {
  /// Names whose order by `lowercased()` differs from their bytes' order, canonically
  /// equivalent spellings, case pairs and ties.
  static let names = [
    "Zebra", "zebra", "apple", "Apple", "\u{E9}clair", "e\u{301}clair", "Eclair", "f",
    "\u{C9}t\u{E9}",
    "\u{130}stanbul", "istanbul", "Stra\u{DF}e", "strasse", "\u{1C5}", "a", "A", "b", "\u{FB01}sh",
    "fish", "Tube 10", "Tube 9", "tube 9", "\u{1F9F4} soap", "", "\u{3A3}\u{3C3}",
  ]

  /// A store holding items named ``names`` (each twice, one at a location), its index written
  /// once so that later changes lie after its prefix.
  static func makeStore(_ folder: URL) throws {
    let device = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
    let shop = try device.addLocation(Location(name: "Shop", createdAt: epoch))
    for (index, name) in names.enumerated() where !name.isEmpty {
      try device.addItem(Item(name: name, quantity: Int64(index), createdAt: epoch))
      var copy = Item(name: name, quantity: 1, createdAt: epoch)
      copy.locationID = shop.id
      copy.lowStockThreshold = 2
      try device.addItem(copy)
    }
    // The first save of a store read whole writes the index (policy `once`: never again).
    let once = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
    try once.consume(once.items()[0].id.rawValue)
    #expect(FileManager.default.fileExists(atPath: IndexedOpenTests.indexPath(folder)))
  }

  static func listed(_ device: DeviceFolder) throws -> [Item] {
    Array(try device.itemListing())
  }

  @Test func aListingThroughTheIndexGivesTheItemsAWholeReadGivesInItsOrder() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let focused = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      #expect(IndexedOpenTests.isUsed(IndexedOpenTests.indexUse(focused)))
      let listing = try focused.itemListing()
      #expect(listing.readsRowByRow)
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once).items()
      #expect(whole.count == 2 * (Self.names.count - 1))
      #expect(try Self.listed(focused) == whole)
    }
  }

  @Test func changesAfterTheIndexsPrefixAreListedAsTheyAreNow() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let other = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
      let ids = Dictionary(grouping: other.items(), by: \.name).mapValues { $0[0].id.rawValue }
      try other.editItem(ids["apple"]!) { $0.name = "Yam" }
      _ = try other.deleteItem(ids["b"]!)
      try other.addItem(Item(name: "b", quantity: 3, createdAt: epoch))
      try other.addItem(Item(name: "Aardvark", quantity: 3, createdAt: epoch))
      try other.consume(ids["f"]!, count: 1)
      let focused = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      guard case .used(let tail)? = IndexedOpenTests.indexUse(focused) else {
        Issue.record("the index was not used")
        return
      }
      #expect(tail > 0)
      #expect(try focused.itemListing().readsRowByRow)
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once).items()
      #expect(try Self.listed(focused) == whole)
    }
  }

  /// The structural bound: the folder `list` opens holds no item's record, and each item is
  /// handed over before the next one is read; nothing the listing reads stays in the store.
  @Test func theListingHoldsNoRecordAndReadsOneItemAtATime() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let focused = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      let content = { focused.folder.content! }
      #expect(content().rows.isEmpty)
      let listing = try focused.itemListing()
      #expect(listing.count == 2 * (Self.names.count - 1))
      // The last item's line is damaged on disk while the first is handed over: a listing
      // that read ahead (or held every record) would still hand it over; this one reads it
      // at its turn, finds it changed, and leaves it out.
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once).items()
      let path = folder.appendingPathComponent("default.store").path
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let needle = Array(whole.last!.id.rawValue.utf8)
      let at = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) })
      var handed = [Item]()
      for item in listing {
        if handed.isEmpty {
          let file = try #require(FileHandle(forWritingAtPath: path))
          try file.seek(toOffset: UInt64(at))
          try file.write(contentsOf: [
            bytes[at] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
          ])
          try file.close()
        }
        handed.append(item)
        // No record is kept in the store's memory as the listing goes.
        #expect(content().rows.isEmpty)
      }
      #expect(handed == Array(whole.dropLast()))
      #expect(content().rows.isEmpty)
    }
  }

  /// A line that fails its checksum inside the committed part: a whole read refuses the
  /// store, and so does the listing (before it hands over any item), never a partial list.
  @Test func aLineThatFailsItsChecksumIsRefusedAsAWholeReadRefusesIt() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      // Damage one row's line in place (same length): its checksum no longer holds.
      let path = folder.appendingPathComponent("default.store").path
      var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let needle = Array("\"strasse\"".utf8)
      guard let at = bytes.indices.first(where: { bytes[$0...].starts(with: needle) }) else {
        Issue.record("no such line")
        return
      }
      bytes[at + 1] = UInt8(ascii: "S")
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(throws: StashError.self) {
        try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
      }
      var handed = 0
      #expect(throws: StashError.self) {
        let focused = try IndexedOpenTests.open(
          folder, focus: [], policy: IndexedOpenTests.once)
        for _ in try focused.itemListing() { handed += 1 }
      }
      #expect(handed == 0)
    }
  }

  @Test func everyLocationIsReadThroughTheIndex() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let other = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
      try other.addLocation(Location(name: "attic", createdAt: epoch))
      let focused = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      #expect(focused.locations().count < 2)
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
      #expect(try focused.everyLocation() == whole.locations())
      #expect(try whole.everyLocation() == whole.locations())
    }
  }

  /// An export hands each line over as soon as it is made: a line damaged on disk after the
  /// first was written is left out (a whole read would have held it already).
  @Test(arguments: [TransferFormat.csv, .jsonl])
  func anExportWritesEachLineBeforeItReadsTheNextItem(format: TransferFormat) throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once)
      let expected = whole.export(as: format).lines
      let focused = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      #expect(focused.export(as: format).lines == expected)
      let path = folder.appendingPathComponent("default.store").path
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let last = try #require(whole.items().last)
      let needle = Array(last.id.rawValue.utf8)
      let at = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) })
      var lines = [String]()
      try focused.export(as: format) { line in
        if lines.isEmpty {
          guard let file = FileHandle(forWritingAtPath: path) else { return }
          try? file.seek(toOffset: UInt64(at))
          try? file.write(contentsOf: [bytes[at] == UInt8(ascii: "a") ? 0x62 : 0x61])
          try? file.close()
        }
        lines.append(line)
      }
      #expect(lines == expected.filter { !$0.contains(last.id.rawValue) })
      #expect(lines.count == expected.count - 1)
    }
  }

  /// Without its index the listing reads the store whole, and writes the index again for
  /// the next one, which reads through it.
  @Test func aListingWithoutAnIndexWritesItForTheNext() throws {
    try withTemporaryFolder { folder in
      try Self.makeStore(folder)
      let index = IndexedOpenTests.indexPath(folder)
      try FileManager.default.removeItem(atPath: index)
      let whole = try IndexedOpenTests.open(folder, policy: IndexedOpenTests.once).items()
      let first = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      let listing = try first.itemListing()
      #expect(!listing.readsRowByRow)
      #expect(Array(listing) == whole)
      #expect(FileManager.default.fileExists(atPath: index))
      let next = try IndexedOpenTests.open(folder, focus: [], policy: IndexedOpenTests.once)
      #expect(try next.itemListing().readsRowByRow)
      #expect(try Self.listed(next) == whole)
    }
  }
}
