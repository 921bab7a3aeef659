import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// `stash history ITEM` reads the record's lines through the local index's history section
/// (every line of the index's prefix about each record) and the lines after the prefix, not
/// the store file: its cost is the record's and the tail's. Its answer is the one the whole
/// file gives, and without a usable section it is that answer, by a search of the whole file.
@Suite struct IndexedHistoryTests {
  typealias Household = FocusedHistoryTests.Household

  /// 1,200 items, each edited three times, saved by a folder read whole whose index is
  /// written again every 256 KiB (the standard policy), some deleted; then edits of 'Tube 5'
  /// by one-record commands, the first of which writes the index again, the last after it.
  static func makeStore(_ house: Household) throws {
    var options = house.options(house.a.lastPathComponent)
    options.index = LocalStore.IndexPolicy(minimumRows: 1)
    let device = try DeviceFolder.open(at: house.a.path, options: options)
    for number in 0..<1200 {
      try device.addItem(Item(name: "Tube \(number)", quantity: 4, createdAt: epoch))
    }
    for round in 0..<3 {
      for number in 0..<1200 {
        try device.editItem("Tube \(number)") { $0.notes = "Round \(round) of \(number)" }
      }
    }
    for number in stride(from: 100, to: 1200, by: 100) {
      _ = try device.deleteItem("Tube \(number)")
    }
    _ = try device.consume("Tube 5")
    // A one-record command that writes the index again (eager), then one that does not.
    try house.open(house.a, focus: [("item", "Tube 5")]).editItem("Tube 5") {
      $0.notes = "Indexed"
    }
    var once = house.options(house.a.lastPathComponent, focus: [("item", "Tube 5")])
    once.index = IndexedOpenTests.once
    _ = try DeviceFolder.open(at: house.a.path, options: once).consume("Tube 5")
  }

  /// The history of `text` as `stash history` reads it (focused, counting the bytes read)
  /// and as the folder read whole reads it.
  static func histories(_ house: Household, _ text: String) throws -> (
    got: String, expected: String, device: DeviceFolder?, files: CountingFileSystem
  ) {
    let whole = try house.open(house.a)
    let expected = FocusedHistoryTests.answer { try whole.history(of: text) }
    let files = CountingFileSystem()
    var options = house.options(house.a.lastPathComponent, focus: [("item", text)])
    options.index = IndexedOpenTests.once
    options.access = .reading
    options.fileSystem = files
    var used: DeviceFolder?
    let got = FocusedHistoryTests.answer {
      let (device, key, events) = try DeviceFolder.open(at: house.a.path, options: options)
        .focusedHistory(of: text)
      used = device
      return (key, events)
    }
    return (got, expected, used, files)
  }

  static func storeSize(_ house: Household) throws -> Int {
    try #require(
      try FileManager.default.attributesOfItem(atPath: house.a.path + "/default.store")[.size]
        as? Int)
  }

  @Test func historyReadsTheRecordsLinesThroughTheIndexNotTheStoreFile() throws {
    try withTemporaryFolder { folder in
      let house = try Household(folder)
      try Self.makeStore(house)
      let size = try Self.storeSize(house)
      #expect(size > 1 << 20)
      for text in ["Tube 5", "Tube 6", "Tube 1199"] {
        let (got, expected, device, files) = try Self.histories(house, text)
        #expect(got == expected, "history '\(text)'")
        #expect(device?.content?.isComplete == false, "'\(text)': read whole")
        let store = files.reads(ofFileEndingWith: "/default.store")
        #expect(store.bytes * 20 < size, "'\(text)': read \(store.bytes) of \(size) bytes")
      }
      // Every version, in the order the file holds them, with each line's transaction.
      let whole = try house.open(house.a)
      let key = try whole.history(of: "Tube 5").key
      let focused = try house.open(house.a, focus: [("item", "Tube 5")])
      #expect(focused.content?.isComplete == false)
      let indexed = try #require(focused.folder.local).log(of: key)
      let searched = try #require(whole.folder.local).log(of: key)
      #expect(
        indexed.entries.count == searched.entries.count && searched.entries.count >= 4,
        "\(indexed.entries.count) and \(searched.entries.count) entries")
      #expect(indexed.entries.map(\.sequence) == searched.entries.map(\.sequence))
      #expect(indexed.entries.map(\.record) == searched.entries.map(\.record))
      #expect(indexed.decoded == searched.decoded)
    }
  }

  @Test func aDamagedMissingOrOlderIndexGivesTheSameHistoryByTheWholeFile() throws {
    try withTemporaryFolder { folder in
      let house = try Household(folder)
      try Self.makeStore(house)
      let index = URL(fileURLWithPath: house.a.path + "/default.store.index")
      var bytes = [UInt8](try Data(contentsOf: index))
      // The history section and its table end the body of an index without a sync's sections.
      bytes[bytes.count - 10] ^= 0x01
      try Data(bytes).write(to: index)
      for text in ["Tube 5", "Tube 1199"] {
        let (got, expected, _, _) = try Self.histories(house, text)
        #expect(got == expected, "damaged: history '\(text)'")
      }
      try FileManager.default.removeItem(at: index)
      let (got, expected, device, _) = try Self.histories(house, "Tube 5")
      #expect(got == expected)
      #expect(device?.content?.isComplete == true)
    }
    try withTemporaryFolder { folder in
      try IndexFormatTests.copyFormat5Fixture(to: folder, version: 7)
      var options = DeviceFolder.Options(
        deviceName: "test-device", clock: { epoch }, access: .reading)
      options.index = IndexedOpenTests.eager
      let whole = try DeviceFolder.open(at: folder.path, options: options)
      let expected = FocusedHistoryTests.answer { try whole.history(of: "Tube 0") }
      options.focus = LocalStore.Focus([.init(model: "item", text: "Tube 0")])
      let focused = try DeviceFolder.open(at: folder.path, options: options)
      #expect(focused.content?.isComplete == true)
      let got = FocusedHistoryTests.answer {
        let (_, key, events) = try focused.focusedHistory(of: "Tube 0")
        return (key, events)
      }
      #expect(got == expected && expected.contains("Tube 0"))
    }
  }
}
