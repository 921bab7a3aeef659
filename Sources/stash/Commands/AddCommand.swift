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
    let current = try session.openForReading(
      focus: arguments.string("location").map { [("location", $0)] } ?? [])
    var item = Item(
      name: arguments.positional("NAME") ?? "",
      brand: arguments.string("brand").nonEmpty,
      quantity: arguments.integer("quantity") ?? 0,
      unit: arguments.string("unit") ?? "",
      notes: arguments.string("notes") ?? "",
      lowStockThreshold: arguments.integer("low-stock"),
      barcode: arguments.string("barcode").nonEmpty,
      createdAt: current.clock())
    if let place = arguments.string("location") {
      item.locationID = try current.location(place).id
    }
    try item.validate()
    if let photo = arguments.string("photo") {
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
