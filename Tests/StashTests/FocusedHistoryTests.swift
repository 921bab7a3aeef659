import Foundation
import JSONLines
import LocalStore
import MirrorStore
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import Stash

/// `stash history ITEM` costs what `stash show` costs: the local store opens focused on the
/// record through its index, the mirror through its own holding only that record's versions,
/// and the local log decodes only that record's lines; the answer is the one a folder read
/// whole gives, and it is that folder's answer whenever the indexes cannot give it.
@Suite struct FocusedHistoryTests {
  /// Two devices with both indexes written at every save and sync.
  final class Household: Sendable {
    let cloud: URL
    let a: URL
    let b: URL
    let tick = Mutex<Int>(0)

    init(_ folder: URL) throws {
      cloud = folder.appendingPathComponent("cloud")
      a = folder.appendingPathComponent("a")
      b = folder.appendingPathComponent("b")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    }

    func options(_ name: String, focus: [(model: String, text: String)]? = nil)
      -> DeviceFolder.Options
    {
      var options = DeviceFolder.Options(
        deviceName: name,
        clock: { [self] in
          tick.withLock { count in
            count += 1
            return Timestamp(secondsSince1970: epoch.secondsSince1970 + Double(count * 60))!
          }
        })
      options.index = IndexedOpenTests.eager
      options.mirrorIndex = MirrorHistory.eager
      if let focus { options.focus(on: focus) }
      return options
    }

    func open(_ home: URL, focus: [(model: String, text: String)]? = nil) throws -> DeviceFolder {
      try DeviceFolder.open(
        at: home.path, options: options(home.lastPathComponent, focus: focus))
    }

    func sync(_ home: URL) throws { _ = try open(home).folder.sync() }
  }

  /// Merges, a resolved conflict, a move between locations, a deletion, changes not synced
  /// yet, and enough other items that a whole open reads far more than the record.
  static func makeHousehold(_ folder: URL) throws -> Household {
    let house = try Household(folder)
    try house.open(house.a).folder.enableSync(cloud: house.cloud.path)
    let a = try house.open(house.a)
    let shop = try a.addLocation(Location(name: "Shop", createdAt: epoch))
    let garage = try a.addLocation(Location(name: "Garage", createdAt: epoch))
    for number in 0..<60 {
      try a.addItem(Item(name: "Tube \(number)", quantity: 4, createdAt: epoch))
    }
    try a.addItem(Item(name: "Koleston", quantity: 5, locationID: shop.id, createdAt: epoch))
    try a.addItem(Item(name: "Batteries", quantity: 12, createdAt: epoch))
    try a.addItem(Item(name: "Foils", quantity: 3, createdAt: epoch))
    try house.sync(house.a)
    try house.open(house.b).folder.enableSync(cloud: house.cloud.path)
    try house.sync(house.b)
    // Concurrent stock moves: merged.
    _ = try house.open(house.b).consume("Koleston")
    try house.sync(house.b)
    _ = try house.open(house.a).consume("Koleston")
    try house.open(house.a).editItem("Koleston") { $0.locationID = garage.id }
    try house.sync(house.a)
    try house.sync(house.b)
    // Concurrent notes: a conflict, resolved on b.
    try house.open(house.a).editItem("Batteries") { $0.notes = "Top shelf" }
    try house.open(house.b).editItem("Batteries") { $0.notes = "Bottom shelf" }
    try house.sync(house.a)
    try house.sync(house.b)
    let b = try house.open(house.b)
    let conflict = try #require(b.folder.conflicts().first)
    try b.folder.resolveConflict(conflict.id.rawValue, keep: .mirror)
    for home in [house.b, house.a, house.b] { try house.sync(home) }
    // A deletion, and changes that have not left a yet (one edited twice).
    _ = try house.open(house.a).deleteItem("Foils")
    try house.sync(house.a)
    _ = try house.open(house.a).consume("Batteries")
    _ = try house.open(house.a).consume("Batteries")
    try house.open(house.a).editItem("Tube 7") { $0.locationID = shop.id }
    _ = try house.open(house.a).consume("Tube 7")
    return house
  }

  /// What a history answers: the key and events, or the refusal.
  static func answer(_ run: () throws -> (RecordKey, [HistoryEvent])) -> String {
    do {
      let (key, events) = try run()
      return "\(key) \(events)"
    } catch {
      return "refused: \(error)"
    }
  }

  static func isUsed(_ use: LocalStore.IndexUse?) -> Bool {
    if case .used = use { return true }
    return false
  }

  static func isUsed(_ use: MirrorStore.IndexUse?) -> Bool {
    if case .used = use { return true }
    return false
  }

  /// The records `events` refer to (their locations).
  static func references(_ events: [HistoryEvent]) -> Set<RecordID> {
    var found = Set<RecordID>()
    for event in events {
      for change in event.changes {
        for value in [change.before, change.after] {
          if case .reference(let id)? = value { found.insert(id) }
        }
      }
      for value in event.record?.values ?? [] {
        if case .reference(let id) = value { found.insert(id) }
      }
    }
    return found
  }

  /// Expects the focused history of `text` on `home` to be the whole folder's, the
  /// locations its events name to be loaded as the whole folder has them, and (for `live`)
  /// the indexes to have answered.
  static func expectSameHistory(
    _ house: Household, _ home: URL, _ text: String, live: Bool
  ) throws {
    let whole = try house.open(home)
    let expected = answer { try whole.history(of: text) }
    let focused = try house.open(home, focus: [("item", text)])
    var used: DeviceFolder?
    let got = answer {
      let (device, key, events) = try focused.focusedHistory(of: text)
      used = device
      return (key, events)
    }
    #expect(got == expected, "history '\(text)' on \(home.lastPathComponent)")
    guard let used else { return }
    if live {
      #expect(used.content?.isComplete == false, "'\(text)': the local store was read whole")
      #expect(isUsed(used.folder.local?.openReport.index), "'\(text)'")
      let mirror = try #require(used.folder.mirror.store)
      #expect(mirror.content.isComplete == false, "'\(text)': the mirror was read whole")
      #expect(isUsed(mirror.indexUse), "'\(text)': \(mirror.indexUse)")
    }
    let (_, events) = try whole.history(of: text)
    for id in references(events) {
      let key = RecordKey(model: "location", id: id)
      #expect(
        (used.content?.row(for: key) != nil) == (whole.content?.row(for: key) != nil),
        "'\(text)': location \(id)")
    }
  }

  @Test func aLiveRecordsHistoryIsReadThroughTheIndexesAndIsTheWholeFoldersHistory() throws {
    try withTemporaryFolder { folder in
      let house = try Self.makeHousehold(folder)
      for home in [house.a, house.b] {
        for text in ["Koleston", "koleston", "Batteries", "Tube 7", "Tube 12"] {
          try Self.expectSameHistory(house, home, text, live: true)
        }
      }
    }
  }

  @Test func aDeletedAmbiguousOrUnknownRecordIsAnsweredByTheWholeFolder() throws {
    try withTemporaryFolder { folder in
      let house = try Self.makeHousehold(folder)
      let whole = try house.open(house.a)
      let foils = try whole.history(of: "Foils").key.id.rawValue
      for home in [house.a, house.b] {
        for text in ["Foils", foils, String(foils.prefix(8)), "Tube", "Nothing", ""] {
          try Self.expectSameHistory(house, home, text, live: false)
        }
      }
    }
  }

  @Test func theLocalLogDecodesOnlyTheRecordsLines() throws {
    try withTemporaryFolder { folder in
      let house = try Self.makeHousehold(folder)
      // b noticed the conflict on Batteries and resolved it.
      let device = try house.open(house.b)
      let local = try #require(device.folder.local)
      let key = try device.history(of: "Batteries").key
      let log = try local.log(of: key)
      let whole = try local.history(of: key)
      #expect(log.entries.count == whole.count && !whole.isEmpty)
      // The store holds over 60 records and hundreds of lines; Batteries is in a few.
      #expect(log.decoded > 0 && log.decoded <= 3 * whole.count + log.conflicts.count * 4)
      #expect(log.conflicts.count == 1 && log.conflicts.first?.state != .open)
    }
  }

  /// The log is searched a mebibyte at a time: a record's lines are found wherever they fall
  /// (across the chunks' edges too), each once, in file order.
  @Test func aRecordsLinesAreFoundAcrossTheSearchsChunks() throws {
    try withTemporaryFolder { folder in
      var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
      options.index = IndexedOpenTests.once
      let device = try DeviceFolder.open(at: folder.path, options: options)
      let watched = try device.addItem(Item(name: "Watched", quantity: 100, createdAt: epoch))
      for round in 0..<6 {
        for number in 0..<150 {
          var item = Item(name: "Filler \(round)-\(number)", quantity: 1, createdAt: epoch)
          item.notes = String(repeating: "n", count: 3000)
          try device.addItem(item)
        }
        _ = try device.consume("Watched")
      }
      _ = try device.deleteItem("Filler 0-0")
      let size = try #require(
        try FileManager.default.attributesOfItem(atPath: folder.path + "/default.store")[.size]
          as? Int)
      #expect(size > 2 << 20)
      let local = try #require(device.folder.local)
      let log = try local.log(of: RecordKey(model: "item", id: watched.id))
      #expect(log.entries.count == 7 && log.entries.allSatisfy { $0.record != nil })
      let sequences = log.entries.map(\.sequence)
      #expect(sequences == sequences.sorted() && Set(sequences).count == 7)
      #expect(log.decoded == 7)  // the removal of another record's row is not decoded
    }
  }

  @Test func aMissingOrDamagedIndexGivesTheSameHistory() throws {
    try withTemporaryFolder { folder in
      let house = try Self.makeHousehold(folder)
      let expected = Self.answer { try house.open(house.a).history(of: "Koleston") }
      let local = house.a.path + "/default.store.index"
      let mirror = house.a.path + "/cloud.store.index"
      try MirrorIndexTests.flipByte(at: 40, of: mirror)  // in its head
      try FileManager.default.removeItem(atPath: local)
      let focused = try house.open(house.a, focus: [("item", "Koleston")])
      let (device, _, _) = try focused.focusedHistory(of: "Koleston")
      #expect(device.content?.isComplete == true)
      #expect(
        Self.answer {
          let (_, key, events) = try focused.focusedHistory(of: "Koleston")
          return (key, events)
        } == expected)
      // The local index back (a whole open writes it at its next save), the mirror's (which
      // the whole open rebuilt) damaged again: the mirror is read whole, the answer the same.
      _ = try house.open(house.a).consume("Tube 30")
      try MirrorIndexTests.flipByte(at: 40, of: mirror)
      let again = try house.open(house.a, focus: [("item", "Koleston")])
      #expect(again.content?.isComplete == false)
      let (_, key, events) = try again.focusedHistory(of: "Koleston")
      #expect(Self.answer { (key, events) } == expected)
      #expect(again.folder.mirror.store?.content.isComplete == true)
    }
  }
}
