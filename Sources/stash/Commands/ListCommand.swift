import ArgumentParsing
import Stash
import StashModel

/// `stash list [--location L] [--low-stock] [--pending] [--json]`
enum ListCommand: StashHandler {
  static let path = ["list"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    var items = device.items()
    var place: Location?
    if let text = arguments.string("location") {
      let location = try device.location(text)
      place = location
      items = items.filter { $0.locationID == location.id }
    }
    if arguments.flag("low-stock") { items = items.filter(\.isLowOnStock) }
    if arguments.flag("pending") {
      let pending = Set(device.pendingRecords().filter { $0.model == "item" }.map(\.id))
      items = items.filter { pending.contains($0.id) }
    }
    let names = Names(device)
    if session.wantsJSON {
      session.output.json(.array(items.map { RecordJSON.item($0, names: names) }))
    } else if items.isEmpty {
      session.output.line(emptyMessage(device: device, place: place, arguments: arguments))
    } else {
      session.output.lines(ItemView.table(items, names: names, output: session.output))
    }
    return ExitStatus.done
  }

  private static func emptyMessage(
    device: DeviceFolder, place: Location?, arguments: ParsedArguments
  ) -> String {
    if arguments.flag("pending") { return "Every item's changes have left this device" }
    let low = arguments.flag("low-stock")
    if let place {
      return low ? "Nothing at '\(place.name)' is low on stock" : "No items at '\(place.name)'"
    }
    if low { return "Nothing is low on stock" }
    return "No items yet; 'stash add NAME' adds one"
  }
}
