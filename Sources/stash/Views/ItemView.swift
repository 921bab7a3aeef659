import Foundation
import Stash
import StashBase
import StashModel

/// How items look on standard output: a table, a detail page, a one-line summary, or JSON.
enum ItemView {
  /// The `stash list` table: id, name, quantity, unit, location, and a low-stock mark.
  static func table(_ items: [Item], names: Names, output: Output) -> [String] {
    var table = TextTable(headers: tableHeaders, rightAligned: [2])
    table.rows = items.map { cells($0, names: names) }
    return table.render().enumerated().map { index, line in
      guard index > 0 else { return output.heading(line) }
      return items[index - 1].isLowOnStock ? output.warning(line) : line
    }
  }

  private static let tableHeaders = ["ID", "NAME", "QTY", "UNIT", "LOCATION", "STOCK"]

  /// One item's cells in the `stash list` table.
  private static func cells(_ item: Item, names: Names) -> [String] {
    [
      Format.short(item.id), item.name, "\(item.quantity)", item.unit,
      Names.text(item.locationID, in: names.locations), item.isLowOnStock ? "low" : "",
    ]
  }

  /// The `stash list` table printed as its items stream: ``measure(_:names:)`` every item
  /// first (the columns' widths), then ``headingLine(output:)`` and each item's
  /// ``line(_:names:output:)``, the lines ``table(_:names:output:)`` gives, no item kept.
  struct StreamedTable {
    private let table = TextTable(headers: ItemView.tableHeaders, rightAligned: [2])
    private var widths = ItemView.tableHeaders.map(\.count)
    /// How many items were measured.
    private(set) var rowCount = 0

    /// Widens the columns for `item`.
    mutating func measure(_ item: Item, names: Names) {
      TextTable.widen(&widths, for: ItemView.cells(item, names: names))
      rowCount += 1
    }

    /// The header line.
    func headingLine(output: Output) -> String {
      output.heading(table.line(table.headers, widths: widths))
    }

    /// `item`'s line (marked as a warning when it is low on stock).
    func line(_ item: Item, names: Names, output: Output) -> String {
      let line = table.line(ItemView.cells(item, names: names), widths: widths)
      return item.isLowOnStock ? output.warning(line) : line
    }
  }

  /// The `stash show` page: every field, the location by name, and the snapshot hash.
  static func details(_ item: Item, hash: SnapshotHash, names: Names) -> [String] {
    var rows: [(String, String)] = [("id", item.id.rawValue)]
    var quantity = Format.quantity(item.quantity, unit: item.unit)
    if let threshold = item.lowStockThreshold {
      quantity += item.isLowOnStock ? " (low on stock)" : ""
      rows.append(("quantity", quantity))
      rows.append(("low stock", "at \(threshold) or fewer"))
    } else {
      rows.append(("quantity", quantity))
    }
    if let brand = item.brand { rows.append(("brand", brand)) }
    if let locationID = item.locationID {
      let name = names.locations[locationID]
      rows.append(("location", name ?? "(missing: \(locationID.rawValue))"))
    }
    if let barcode = item.barcode { rows.append(("barcode", barcode)) }
    if let photo = item.photo {
      rows.append(("photo", "\(photo.digest.hex) (\(Format.count(Int(photo.size), "byte")))"))
    }
    if !item.notes.isEmpty { rows.append(("notes", item.notes)) }
    rows.append(("created", Format.time(item.createdAt)))
    rows.append(("updated", Format.time(item.updatedAt)))
    rows.append(("hash", hash.hex))
    let width = rows.map(\.0.count).max() ?? 0
    return [item.name]
      + rows.map { label, value in
        "  " + label + String(repeating: " ", count: width - label.count) + "  "
          + value.replacingOccurrences(
            of: "\n", with: "\n" + String(repeating: " ", count: width + 4))
      }
  }

  /// `'Koleston 7/1' (3f2b8c1e): 4 tube at 'bathroom'`, with a low-stock note.
  static func summary(_ item: Item, names: Names) -> String {
    var text =
      "'\(item.name)' (\(Format.short(item.id))): "
      + Format.quantity(item.quantity, unit: item.unit)
    if let locationID = item.locationID {
      text += " at " + (names.locations[locationID].map { "'\($0)'" } ?? "a missing location")
    }
    if item.isLowOnStock, let threshold = item.lowStockThreshold {
      text += "; low on stock (\(threshold) or fewer)"
    }
    return text
  }

  /// What a command that changed an item prints: `<verb> <summary>`, or the item as JSON.
  static func report(_ verb: String, _ item: Item, device: DeviceFolder, session: Session) {
    let names = Names(device, locationOf: item)
    if session.wantsJSON {
      session.output.json(RecordJSON.item(item, names: names))
    } else {
      session.output.line(verb + " " + summary(item, names: names))
    }
  }
}
