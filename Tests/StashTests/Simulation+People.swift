import Foundation
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport

/// What people do on the simulated devices: the random operations of a history.
extension Simulation {
  mutating func add(on device: SimulatedDevice) throws {
    let folder = try open(device)
    let item = Item(
      id: .random(using: &random), name: "Item \(Int.random(in: 0..<100, using: &random))",
      quantity: Int64.random(in: 0...20, using: &random), unit: "tube",
      photo: try attachedPhoto(on: folder), createdAt: now())
    try folder.addItem(item)
    written.insert(item.record.snapshotHash)
  }

  /// An item to act on: one of the shared ones most of the time.
  mutating func pick(_ folder: DeviceFolder) -> Item? {
    let items = folder.items()
    let common = items.filter { shared.contains($0.id) }
    if !common.isEmpty && Int.random(in: 0..<10, using: &random) < 7 {
      return common.randomElement(using: &random)
    }
    return items.randomElement(using: &random)
  }

  /// A rename (stock moves and recounts are in `Simulation+Moves.swift`).
  mutating func change(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    let name = "Renamed \(Int.random(in: 0..<100, using: &random))"
    let after = try folder.editItem(item.id.rawValue) {
      (item: inout Item) throws(StashError) in item.name = name
    }
    fieldEdits[FieldEditKey(key: item.record.key, field: "name"), default: []].append(name)
    replaced.insert(item.record.snapshotHash)
    written.insert(after.record.snapshotHash)
  }

  /// Locations and reminders: add, rename or delete a location (items and reminders that
  /// pointed at it keep a dangling reference), move an item, add or delete a reminder.
  mutating func place(on device: SimulatedDevice) throws {
    let folder = try open(device)
    let locations = folder.locations()
    let action = locations.isEmpty ? 0 : Int.random(in: 0..<6, using: &random)
    do {
      switch action {
      case 0:
        let id = RecordID.random(using: &random)
        let number = Int.random(in: 0..<1000, using: &random)
        let latitude: Double = Double.random(in: -90...90, using: &random)
        let longitude: Double = Double.random(in: -180...180, using: &random)
        let time = now()
        let location = Location(
          id: id, name: "Place \(number)", latitude: latitude, longitude: longitude,
          createdAt: time)
        try folder.addLocation(location)
        written.insert(location.record.snapshotHash)
      case 1:
        guard let location = locations.randomElement(using: &random) else { return }
        let name = "Renamed place \(Int.random(in: 0..<1000, using: &random))"
        let after = try folder.editLocation(location.id.rawValue) {
          (place: inout Location) throws(StashError) in place.name = name
        }
        replaced.insert(location.record.snapshotHash)
        written.insert(after.record.snapshotHash)
      case 2:
        guard let location = locations.randomElement(using: &random) else { return }
        try folder.deleteLocation(location.id.rawValue)
        replaced.insert(location.record.snapshotHash)
        deletedOnPurpose.insert(location.record.key)
      case 3:
        guard let item = pick(folder) else { return }
        let target = locations.randomElement(using: &random)?.id
        let after = try folder.editItem(item.id.rawValue) {
          (item: inout Item) throws(StashError) in item.locationID = target
        }
        replaced.insert(item.record.snapshotHash)
        written.insert(after.record.snapshotHash)
      case 4:
        guard let location = locations.randomElement(using: &random) else { return }
        let id = RecordID.random(using: &random)
        let item: RecordID? = pick(folder)?.id
        let number = Int.random(in: 0..<100, using: &random)
        let trigger: ReminderTrigger = Bool.random(using: &random) ? .arrive : .leave
        let time = now()
        let reminder = Reminder(
          id: id, locationID: location.id, itemID: item, message: "Check \(number)",
          trigger: trigger, createdAt: time)
        try folder.addReminder(reminder)
        written.insert(reminder.record.snapshotHash)
      default:
        guard let reminder = folder.reminders().randomElement(using: &random) else { return }
        try folder.deleteReminder(reminder.id.rawValue)
        replaced.insert(reminder.record.snapshotHash)
        deletedOnPurpose.insert(reminder.record.key)
      }
    } catch {
      // Location names are unique on a device: a repeated random name is refused. (Written
      // without `catch … where`: with typed throws, that form hangs Swift 6.3.1's SIL
      // generation.)
      guard error.message.contains("already") else { throw error }
    }
    totals.places += 1
    // Dangling references (a deleted location, one not arrived yet) are reported, never fatal.
    _ = folder.folder.content?.danglingReferences()
  }

  mutating func delete(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    look(at: item.record.key, on: folder)
    try folder.deleteItem(item.id.rawValue)
    replaced.insert(item.record.snapshotHash)
    deletedOnPurpose.insert(item.record.key)
    totals.deletes += 1
  }

  mutating func duplicate(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    let copy = try folder.duplicateItem(item.id.rawValue)
    written.insert(copy.record.snapshotHash)
    // The copy starts with the original's count as it stands, tallies included: for the
    // ledger those tallies are moves of the copy's epoch (which no device made on it).
    let fresh = Counter(base: copy.stock.base, epoch: copy.stock.epoch)
    for mover in Set(copy.stock.increments.keys).union(copy.stock.decrements.keys).sorted() {
      ledger.record(key: copy.record.key, from: fresh, to: copy.stock, by: mover)
    }
  }

  mutating func resolve(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let conflict = folder.folder.conflicts().randomElement(using: &random) else { return }
    let choices: [ResolutionChoice] = [.local, .mirror, .deleted]
    let choice = choices.randomElement(using: &random)!
    let before = folder.folder.content?.rows(for: conflict.key).map(\.hash) ?? []
    let looked =
      conflict.sides.compactMap(\.snapshot?.record)
      + (folder.folder.content?.rows(for: conflict.key).map(\.record) ?? [])
    do {
      let resolved = try folder.folder.resolveConflict(conflict.id.rawValue, keep: choice)
      ledger.look(at: looked)
      totals.resolutions += 1
      replaced.formUnion(before)
      if case .deleted = choice { deletedOnPurpose.insert(conflict.key) }
      if let row = folder.folder.content?.row(for: conflict.key),
        row.hash == resolved.resolution?.result
      {
        written.insert(row.hash)
      } else {
        deletedOnPurpose.insert(conflict.key)
      }
    } catch {
      // A choice that does not fit (an absent side), or the record changed since: refused.
      totals.refusedResolutions += 1
    }
  }
}
