import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash list [--location L] [--low-stock] [--pending] [--json]`
///
/// With `--pending`, the items whose changes have not left this device and the items deleted
/// here whose deletion has not left it either: `--json` is then
/// `{"items": [...], "deletions": [{"model", "id", "name", "deletedAt", "hash"}]}`.
enum ListCommand: StashHandler {
  static let path = ["list"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    if arguments[CommandTable.pendingFilter] { return try runPending(arguments, in: session) }
    // Opened for the location named (if any) only: the items are then read one at a time
    // through the store's index, so that listing never holds the whole store.
    let placeText = arguments[CommandTable.locationFilter]
    let device = try session.openForReading(focus: placeText.map { [("location", $0)] } ?? [])
    var place: Location?
    if let placeText { place = try device.location(placeText) }
    let low = arguments[CommandTable.lowStockFilter]
    let listing = try device.itemListing()
    let names = Names(locations: try device.everyLocation())
    func shown(_ item: Item) -> Bool {
      (place.map { item.locationID == $0.id } ?? true) && (!low || item.isLowOnStock)
    }
    if session.wantsJSON {
      // `[`, each item, `]`: the bytes the whole array would print, one item at a time.
      var first = true
      session.output.write("[")
      for item in listing where shown(item) {
        session.output.write((first ? "" : ",") + RecordJSON.itemJSON(item, names: names))
        first = false
      }
      session.output.write("]\n")
      return ExitStatus.done
    }
    // Two passes: the columns' widths, then the lines (each item read again, none kept).
    var table = ItemView.StreamedTable()
    for item in listing where shown(item) { table.measure(item, names: names) }
    guard table.rowCount > 0 else {
      session.output.line(emptyMessage(device: device, place: place, arguments: arguments))
      return ExitStatus.done
    }
    session.output.line(table.headingLine(output: session.output))
    for item in listing where shown(item) {
      session.output.line(table.line(item, names: names, output: session.output))
    }
    return ExitStatus.done
  }

  /// `list --pending`: the folder read whole (the pending records need every checkpoint).
  private static func runPending(_ arguments: ParsedArguments, in session: Session) throws
    -> Int32
  {
    let device = try session.openForReading()
    var items = device.items()
    var place: Location?
    if let text = arguments[CommandTable.locationFilter] {
      let location = try device.location(text)
      place = location
      items = items.filter { $0.locationID == location.id }
    }
    if arguments[CommandTable.lowStockFilter] { items = items.filter(\.isLowOnStock) }
    let pending = Set(device.pendingRecords().filter { $0.model == "item" }.map(\.id))
    items = items.filter { pending.contains($0.id) }
    // A deletion has no location nor stock: listed only when no filter asks for one.
    let filtered = place != nil || arguments[CommandTable.lowStockFilter]
    let deletions = filtered ? [] : device.pendingDeletions(of: "item")
    printPending(items, deletions: deletions, names: Names(device), session: session)
    return ExitStatus.done
  }

  /// `list --pending`: the items, then the deletions, as tables or one JSON object.
  private static func printPending(
    _ items: [Item], deletions: [PendingDeletion], names: Names, session: Session
  ) {
    if session.wantsJSON {
      let deleted: [JSONValue] = deletions.map { deletion in
        .object([
          "model": .string(deletion.tombstone.model),
          "id": .string(deletion.tombstone.id.rawValue),
          "name": deletion.name.map { .string($0) } ?? .null,
          "deletedAt": Format.isoTime(deletion.tombstone.deletedAt),
          "hash": .string(deletion.tombstone.hash.hex),
        ])
      }
      session.output.json([
        "items": .array(items.map { RecordJSON.item($0, names: names) }),
        "deletions": .array(deleted),
      ])
      return
    }
    if items.isEmpty && deletions.isEmpty {
      session.output.line("Every item's changes have left this device")
      return
    }
    if !items.isEmpty {
      session.output.lines(ItemView.table(items, names: names, output: session.output))
    }
    guard !deletions.isEmpty else { return }
    if !items.isEmpty { session.output.line() }
    session.output.line("Deleted here, not sent yet:")
    var table = TextTable(headers: ["ID", "NAME", "DELETED"])
    for deletion in deletions {
      table.rows.append([
        Format.short(deletion.tombstone.id), deletion.name ?? "-",
        Format.time(deletion.tombstone.deletedAt),
      ])
    }
    session.output.lines(
      table.render().enumerated().map { $0 == 0 ? session.output.heading($1) : $1 })
  }

  private static func emptyMessage(
    device: DeviceFolder, place: Location?, arguments: ParsedArguments
  ) -> String {
    if arguments[CommandTable.pendingFilter] { return "Every item's changes have left this device" }
    let low = arguments[CommandTable.lowStockFilter]
    if let place {
      return low ? "Nothing at '\(place.name)' is low on stock" : "No items at '\(place.name)'"
    }
    if low { return "Nothing is low on stock" }
    return "No items yet; 'stash add NAME' adds one"
  }
}
