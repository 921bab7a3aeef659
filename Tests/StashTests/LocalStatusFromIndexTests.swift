import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import Stash

/// `sync status` does not read the local store whole either: a sync leaves in the local index
/// a status section (the records not sent, where the file ended) beside the digest section,
/// and status opens the store from the index for the records changed after its prefix only.
/// Its answer is the whole store's in every case; without a usable section it reads whole.
@Suite struct LocalStatusFromIndexTests {
  typealias Household = FocusedHistoryTests.Household

  /// `home` opened as `stash sync status` opens it, with an index that is not written again
  /// by the saves in between (its prefix falls behind).
  static func statusFolder(_ house: Household, _ home: URL) throws -> DeviceFolder {
    var options = house.options(home.lastPathComponent, focus: [])
    options.index = IndexedOpenTests.once
    options.access = .reading  // as the CLI opens it: nothing is written
    let device = try DeviceFolder.open(at: home.path, options: options).openedForStatus()
    device.folder.openMirrorForStatus()
    return device
  }

  /// `home` opened as a command that changes one record does, leaving the index as it is.
  /// A household whose device A holds 1,200 items, synced once.
  static func syncedHouseOf1200Items(_ folder: URL) throws -> Household {
    let house = try Household(folder)
    try house.open(house.a).folder.enableSync(cloud: house.cloud.path)
    let a = try Self.open(house, house.a)
    for number in 0..<1200 {
      try a.addItem(Item(name: "Tube \(number)", quantity: 4, createdAt: epoch))
    }
    try house.sync(house.a)
    return house
  }

  static func open(_ house: Household, _ home: URL) throws -> DeviceFolder {
    var options = house.options(home.lastPathComponent)
    options.index = IndexedOpenTests.once
    return try DeviceFolder.open(at: home.path, options: options)
  }

  /// Expects status as `stash sync status` reads it to say what status over both stores read
  /// whole says, and the local store to have been read (`fromIndex`) through the index only.
  /// `device` (house's "a", opened for status through the index) read its status from the
  /// index's section: under 1/20 of the store file, and the status a whole read shows.
  static func expectStatusReadFromTheIndex(
    _ device: DeviceFolder, _ house: Household, _ files: CountingFileSystem
  ) throws {
    #expect(device.folder.content?.isComplete == false)
    #expect(device.folder.indexedLocalStatus.withLock { $0 != nil })
    let store = files.reads(ofFileEndingWith: "/default.store")
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: house.a.path + "/default.store")[.size]
        as? Int)
    #expect(store.bytes * 20 < size, "read \(store.bytes) of \(size) bytes")
    try expectSameStatus(house, house.a, fromIndex: true)
  }

  static func expectSameStatus(_ house: Household, _ home: URL, fromIndex: Bool) throws {
    let device = try statusFolder(house, home)
    let got = StatusFromIndexTests.shown(device)
    let complete = device.folder.content?.isComplete
    #expect(complete == !fromIndex, "the local store was read whole: \(complete == true)")
    #expect(device.folder.indexedLocalStatus.withLock { $0 != nil } == fromIndex)
    var options = house.options(home.lastPathComponent)
    options.index = IndexedOpenTests.once
    let whole = try DeviceFolder.open(at: home.path, options: options)
    #expect(whole.folder.content?.isComplete == true)
    #expect(got == StatusFromIndexTests.shown(whole))
    #expect(DigestViewText.of(device) == DigestViewText.of(whole))
  }

  @Test func statusReadsTheLocalStoreThroughItsIndexAndSaysWhatTheWholeStoreSays() throws {
    try withTemporaryFolder { folder in
      let (house, _) = try StatusFromIndexTests.makeHousehold(folder)
      // The last save wrote the index again (without a status section): read whole, until a
      // sync that reads the store whole writes the sections.
      try Self.expectSameStatus(house, house.a, fromIndex: false)
      try Self.expectSameStatus(house, house.a, fromIndex: false)
      try house.sync(house.a)
      try Self.expectSameStatus(house, house.a, fromIndex: true)
      // Changes after the index's prefix: stock, an edit, a deletion, a new record.
      _ = try Self.open(house, house.a).consume("Tube 21")
      try Self.open(house, house.a).editItem("Tube 22") { $0.notes = "moved" }
      _ = try Self.open(house, house.a).deleteItem("Tube 23")
      try Self.open(house, house.a).addItem(Item(name: "New", quantity: 2, createdAt: epoch))
      try Self.expectSameStatus(house, house.a, fromIndex: true)
      // b's changes, imported by a sync of a that leaves the index's prefix behind.
      _ = try house.open(house.b).consume("Tube 30")
      try house.sync(house.b)
      _ = try Self.open(house, house.a).folder.sync()
      try Self.expectSameStatus(house, house.a, fromIndex: true)
    }
  }

  /// The cost is structural: of a store of 1,200 items, status reads the lines after the
  /// index's prefix and those of the records they touched, not the store.
  @Test func statusReadsAFewLinesOfTheLocalStoreNotTheStore() throws {
    try withTemporaryFolder { folder in
      let house = try Self.syncedHouseOf1200Items(folder)
      _ = try Self.open(house, house.a).consume("Tube 7")
      _ = try Self.open(house, house.a).deleteItem("Tube 8")
      let files = CountingFileSystem()
      var options = house.options(house.a.lastPathComponent, focus: [])
      options.index = IndexedOpenTests.once
      options.fileSystem = files
      let device = try DeviceFolder.open(at: house.a.path, options: options).openedForStatus()
      device.folder.openMirrorForStatus()
      let got = StatusFromIndexTests.shown(device)
      try Self.expectStatusReadFromTheIndex(device, house, files)
      // The two records changed since the sync wait to be sent; no conflict.
      let pending = device.syncOverview().pendingRecords
      #expect(pending.count == 2 && pending.allSatisfy { $0.model == "item" }, "\(pending)")
      #expect(got.contains("conflicts 0 "), "\(got)")
    }
  }

  /// A save that writes the index again (256 KiB of log past its prefix) carries the status
  /// section forward, with the records the lines it now covers touched: status still reads a
  /// few lines of the store, and still says what the whole store says.
  @Test func theStatusSectionSurvivesASaveThatWritesTheIndexAgain() throws {
    try withTemporaryFolder { folder in
      let house = try Self.syncedHouseOf1200Items(folder)
      let index = URL(fileURLWithPath: house.a.path + "/default.store.index")
      let synced = try Data(contentsOf: index)
      // Edits of a few records, as a one-record command saves them, until one save writes
      // the index again (the standard policy: 256 KiB of log past its prefix).
      var options = house.options(house.a.lastPathComponent)
      options.index = LocalStore.IndexPolicy(minimumRows: 1)
      let notes = String(repeating: "a long note ", count: 120)
      var edits = 0
      while try Data(contentsOf: index) == synced, edits < 400 {
        options.focus = LocalStore.Focus([.init(model: "item", text: "Tube \(edits % 5)")])
        try DeviceFolder.open(at: house.a.path, options: options).editItem(
          "Tube \(edits % 5)"
        ) { $0.notes = notes + "\(edits)" }
        edits += 1
      }
      #expect(edits > 100 && edits < 400, "\(edits) edits")
      _ = try Self.open(house, house.a).consume("Tube 7")
      let files = CountingFileSystem()
      var counted = house.options(house.a.lastPathComponent, focus: [])
      counted.index = IndexedOpenTests.once
      counted.access = .reading
      counted.fileSystem = files
      let device = try DeviceFolder.open(at: house.a.path, options: counted).openedForStatus()
      device.folder.openMirrorForStatus()
      try Self.expectStatusReadFromTheIndex(device, house, files)
      let pending = device.syncOverview().pendingRecords
      #expect(pending.count == 6, "\(pending)")
    }
  }

  @Test func aMissingOrDamagedIndexReadsTheStoreWholeAndSaysTheSame() throws {
    try withTemporaryFolder { folder in
      let (house, _) = try StatusFromIndexTests.makeHousehold(folder)
      try house.sync(house.a)
      _ = try Self.open(house, house.a).consume("Tube 21")
      try Self.expectSameStatus(house, house.a, fromIndex: true)
      let index = house.a.path + "/default.store.index"
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: index)))
      bytes[bytes.count - 100] ^= 0x01  // in the last block: the digest section
      try Data(bytes).write(to: URL(fileURLWithPath: index))
      try Self.expectSameStatus(house, house.a, fromIndex: false)
      try FileManager.default.removeItem(atPath: index)
      try Self.expectSameStatus(house, house.a, fromIndex: false)
    }
  }
}

/// The digest as status shows it: overall, and each model's digest and count.
enum DigestViewText {
  static func of(_ device: DeviceFolder) -> String {
    let digest = device.syncOverview().digest
    let models = digest.perModel.sorted { $0.key < $1.key }.map {
      "\($0.key) \($0.value) \(digest.counts[$0.key] ?? 0)"
    }
    return "\(digest.overall) " + models.joined(separator: ", ")
  }
}
