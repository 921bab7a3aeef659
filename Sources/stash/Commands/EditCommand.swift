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

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    guard CommandTable.edit.options.contains(where: arguments.isGiven) else {
      throw UsageError(
        .missingOption,
        message: "Nothing to change for 'stash edit'; give at least one option, such as "
          + "'--quantity N'",
        path: path, rootName: CommandTable.root.name)
    }
    let text = arguments[CommandTable.item]
    let place = arguments[CommandTable.itemLocation]
    var focus = [("item", text)]
    if let place { focus.append(("location", place)) }
    let device = try session.openForReading(focus: focus)
    let current = try device.item(text)
    var location: RecordID?? = nil
    if let place {
      location = .some(try device.location(place).id)
    } else if arguments[CommandTable.noLocation] {
      location = .some(nil)
    }
    // A new quantity is a recount: one new epoch, the same in the preview and the save.
    let recount = arguments[CommandTable.recount].map {
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
    if let file = arguments[CommandTable.photo] {
      photo = .some(try device.storePhoto(at: file))
    } else if arguments[CommandTable.noPhoto] {
      photo = .some(nil)
    }
    // The item found once above: the save takes its freshest copy by id, not by name again.
    let item = try device.editItem(current) { item in
      change(&item)
      if let photo { item.photo = photo }
    }
    ItemView.report("Changed", item, device: device, session: session)
    return ExitStatus.done
  }

  /// The plain field changes the options ask for.
  private static func apply(_ arguments: ParsedArguments, to item: inout Item) {
    if let name = arguments[CommandTable.newName] { item.name = name }
    if let brand = arguments[CommandTable.brand] { item.brand = brand.isEmpty ? nil : brand }
    if let unit = arguments[CommandTable.unit] { item.unit = unit }
    if let notes = arguments[CommandTable.notes] { item.notes = notes }
    if let barcode = arguments[CommandTable.barcode] {
      item.barcode = barcode.isEmpty ? nil : barcode
    }
    if let threshold = arguments[CommandTable.lowStock] { item.lowStockThreshold = threshold }
    if arguments[CommandTable.noLowStock] { item.lowStockThreshold = nil }
  }
}
