import ArgumentParsing
import Stash
import StashModel

/// `stash edit ITEM [--name ..] [--brand ..] [--quantity N] [--unit U] [--notes T]
/// [--barcode C] [--low-stock N | --no-low-stock] [--photo FILE | --no-photo]
/// [--location L | --no-location]`
///
/// An empty `--brand ""` or `--barcode ""` removes the value. The edit is checked on a copy
/// before the photo is stored or anything is written, so a refused edit changes nothing.
enum EditCommand: StashHandler {
  static let path = ["edit"]

  static let changes = [
    "name", "brand", "quantity", "unit", "notes", "barcode", "low-stock", "no-low-stock",
    "photo", "no-photo", "location", "no-location",
  ]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    guard changes.contains(where: arguments.has) else {
      throw UsageError(
        .missingOption,
        message: "Nothing to change for 'stash edit'; give at least one option, such as "
          + "'--quantity N'",
        path: path, rootName: CommandTable.root.name)
    }
    var focus = [("item", arguments.positional("ITEM") ?? "")]
    if let place = arguments.string("location") { focus.append(("location", place)) }
    let device = try session.openForReading(focus: focus)
    let current = try device.item(arguments.positional("ITEM") ?? "")
    var location: RecordID?? = nil
    if let place = arguments.string("location") {
      location = .some(try device.location(place).id)
    } else if arguments.flag("no-location") {
      location = .some(nil)
    }
    // A new quantity is a recount: one new epoch, the same in the preview and the save.
    let recount = arguments.integer("quantity").map {
      Counter.recount(to: $0, epoch: device.newEpoch())
    }
    let change = { (item: inout Item) in
      apply(arguments, to: &item)
      if let recount { item.stock = recount }
      if let location { item.locationID = location }
    }
    var preview = current
    change(&preview)
    try preview.validate()
    var photo: BlobRef?? = nil
    if let file = arguments.string("photo") {
      photo = .some(try device.storePhoto(at: file))
    } else if arguments.flag("no-photo") {
      photo = .some(nil)
    }
    let item = try device.editItem(current.id.rawValue) { item in
      change(&item)
      if let photo { item.photo = photo }
    }
    ItemView.report("Changed", item, device: device, session: session)
    return ExitStatus.done
  }

  /// The plain field changes the options ask for.
  private static func apply(_ arguments: ParsedArguments, to item: inout Item) {
    if let name = arguments.string("name") { item.name = name }
    if let brand = arguments.string("brand") { item.brand = brand.isEmpty ? nil : brand }
    if let unit = arguments.string("unit") { item.unit = unit }
    if let notes = arguments.string("notes") { item.notes = notes }
    if let barcode = arguments.string("barcode") {
      item.barcode = barcode.isEmpty ? nil : barcode
    }
    if let threshold = arguments.integer("low-stock") { item.lowStockThreshold = threshold }
    if arguments.flag("no-low-stock") { item.lowStockThreshold = nil }
  }
}
