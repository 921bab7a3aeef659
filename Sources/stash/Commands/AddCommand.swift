import ArgumentParsing
import Stash
import StashModel

/// `stash add NAME [--quantity N] [--unit U] [--brand B] [--notes T] [--location L]
/// [--photo FILE] [--low-stock N] [--barcode C]`
///
/// Everything is checked before anything is written: a bad value, an unknown location or an
/// unreadable photo leaves the folder as it was (and creates none).
enum AddCommand: StashHandler {
  static let path = ["add"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let place = arguments[CommandTable.itemLocation]
    let current = try session.openForReading(focus: place.map { [("location", $0)] } ?? [])
    var item = Item(
      name: arguments[CommandTable.itemName],
      brand: arguments[CommandTable.brand].nonEmpty,
      quantity: arguments[CommandTable.quantity] ?? 0,
      unit: arguments[CommandTable.unit] ?? "",
      notes: arguments[CommandTable.notes] ?? "",
      lowStockThreshold: arguments[CommandTable.lowStock],
      barcode: arguments[CommandTable.barcode].nonEmpty,
      createdAt: current.folder.clock())
    if let place {
      item.locationID = try current.location(place).id
    }
    try item.validate()
    if let photo = arguments[CommandTable.photo] {
      item.photo = try current.storePhoto(at: photo)
    }
    let device = try session.openForWriting(reusing: current)
    try device.addItem(item)
    ItemView.report("Added", item, device: device, session: session)
    return ExitStatus.done
  }
}

extension String? {
  /// `nil` for `nil` or the empty string: an empty `--brand ""` means "no brand".
  var nonEmpty: String? {
    guard let self, !self.isEmpty else { return nil }
    return self
  }
}
