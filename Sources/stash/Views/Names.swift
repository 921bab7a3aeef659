import Stash
import StashBase
import StashModel

/// The names of the records others refer to, to show a reference as a name, or as
/// `(missing)` when it dangles (the target was deleted, or has not synced here yet).
struct Names {
  private(set) var locations: [RecordID: String] = [:]
  private(set) var items: [RecordID: String] = [:]

  /// The location names of `device`, and its item names when `items` is true.
  init(_ device: DeviceFolder, items includeItems: Bool = false) {
    for location in device.locations() { locations[location.id] = location.name }
    if includeItems {
      for item in device.items() { items[item.id] = item.name }
    }
  }

  /// These locations' names (as ``init(_:items:)`` takes them from ``DeviceFolder/locations()``).
  init(locations list: [Location]) {
    for location in list { locations[location.id] = location.name }
  }

  /// Only the name of `item`'s location: one lookup by id, no scan (for commands such as
  /// `stash consume` that must stay cheap on a large inventory).
  init(_ device: DeviceFolder, locationOf item: Item) {
    if let id = item.locationID, let location = try? device.location(id.rawValue),
      location.id == id
    {
      locations[id] = location.name
    }
  }

  /// `-` for no reference, the name, or `(missing)`.
  static func text(_ id: RecordID?, in names: [RecordID: String]) -> String {
    guard let id else { return "-" }
    return names[id] ?? "(missing)"
  }

  /// `null` for no reference, else `{"id", "name", "missing"}` (`name` is `null` when missing).
  static func json(_ id: RecordID?, in names: [RecordID: String]) -> JSONValue {
    guard let id else { return .null }
    let name = names[id]
    return .object([
      "id": .string(id.rawValue), "name": name.map { .string($0) } ?? .null,
      "missing": .bool(name == nil),
    ])
  }
}

/// The JSON every command prints for a record: the record as stored plus a few derived facts.
enum RecordJSON {
  /// `{"model", "id", "hash", "fields"}`: `fields` exactly as the store writes them, `hash` the
  /// snapshot hash (64 hex digits).
  static func object(_ record: Record, hash: SnapshotHash? = nil) -> JSONObject {
    [
      "model": .string(record.model),
      "id": .string(record.id.rawValue),
      "hash": .string((hash ?? record.snapshotHash).hex),
      "fields": .object(record.fieldsJSON()),
    ]
  }

  /// An item, with `quantity` (the stock's value: `fields.quantity` is the counter as stored),
  /// `location` (`null` or `{"id", "name", "missing"}`) and `lowOnStock`.
  static func item(_ item: Item, names: Names, stored: StoredRecord? = nil) -> JSONValue {
    var object = Self.object(stored?.record ?? item.record, hash: stored?.hash)
    object.append("quantity", .integer(item.quantity))
    object.append("location", Names.json(item.locationID, in: names.locations))
    object.append("lowOnStock", .bool(item.isLowOnStock))
    return .object(object)
  }

  /// ``item(_:names:stored:)`` as `stash` prints it: compact JSON with the characters
  /// ``TerminalText`` neutralizes escaped.
  static func itemJSON(_ item: Item, names: Names) -> String {
    TerminalText.neutralizedJSON(JSONWriter.string(Self.item(item, names: names)))
  }

  /// A location, with the number of items kept there.
  static func location(_ location: Location, items: Int) -> JSONValue {
    var object = Self.object(location.record)
    object.append("items", .integer(Int64(items)))
    return .object(object)
  }

  /// A reminder, with its `location` and `item` references resolved to names.
  static func reminder(_ reminder: Reminder, names: Names) -> JSONValue {
    var object = Self.object(reminder.record)
    object.append("location", Names.json(reminder.locationID, in: names.locations))
    object.append("item", Names.json(reminder.itemID, in: names.items))
    return .object(object)
  }
}
