import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash location add NAME [--latitude D --longitude D] [--radius D] [--notes T]`
enum LocationAddCommand: StashHandler {
  static let path = ["location", "add"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let current = try session.openForReading()
    let location = Location(
      name: arguments[CommandTable.locationName], latitude: arguments[CommandTable.latitude],
      longitude: arguments[CommandTable.longitude], radius: arguments[CommandTable.radius],
      notes: arguments[CommandTable.notes] ?? "", createdAt: current.folder.clock())
    try location.validate()
    let device = try session.openForWriting(reusing: current)
    try device.addLocation(location)
    LocationView.report("Added location", location, items: 0, session: session)
    return ExitStatus.done
  }
}

/// `stash location list [--json]`
enum LocationListCommand: StashHandler {
  static let path = ["location", "list"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let locations = device.locations()
    let counts = LocationView.itemCounts(device)
    if session.wantsJSON {
      session.output.json(
        .array(locations.map { RecordJSON.location($0, items: counts[$0.id] ?? 0) }))
    } else if locations.isEmpty {
      session.output.line("No locations yet; 'stash location add NAME' adds one")
    } else {
      session.output.lines(LocationView.table(locations, items: counts, output: session.output))
    }
    return ExitStatus.done
  }
}

/// `stash location edit LOCATION [--name ..] [--latitude D] [--longitude D] [--radius D]
/// [--notes T]`
enum LocationEditCommand: StashHandler {
  static let path = ["location", "edit"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    guard CommandTable.locationEdit.options.contains(where: arguments.isGiven) else {
      throw UsageError(
        .missingOption,
        message: "Nothing to change for 'stash location edit'; give at least one option, such "
          + "as '--radius D'",
        path: path, rootName: CommandTable.root.name)
    }
    let device = try session.openForReading()
    let text = arguments[CommandTable.locationArgument]
    let location = try device.editLocation(text) { location in
      if let name = arguments[CommandTable.newName] { location.name = name }
      if let latitude = arguments[CommandTable.latitude] { location.latitude = latitude }
      if let longitude = arguments[CommandTable.longitude] { location.longitude = longitude }
      if let radius = arguments[CommandTable.radius] { location.radius = radius }
      if let notes = arguments[CommandTable.notes] { location.notes = notes }
    }
    let items = LocationView.itemCounts(device)[location.id] ?? 0
    LocationView.report("Changed location", location, items: items, session: session)
    return ExitStatus.done
  }
}

/// `stash location delete LOCATION`: items and reminders that name it keep its id, shown as
/// missing.
enum LocationDeleteCommand: StashHandler {
  static let path = ["location", "delete"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let location = try device.deleteLocation(arguments[CommandTable.locationArgument])
    let items = LocationView.itemCounts(device)[location.id] ?? 0
    let reminders = device.reminders().filter { $0.locationID == location.id }.count
    var extra = ""
    if items + reminders > 0 {
      let what = [(items, "item"), (reminders, "reminder")].filter { $0.0 > 0 }
        .map { Format.count($0.0, $0.1) }.joined(separator: " and ")
      extra = "; it is still named by \(what), which now show it as missing"
    }
    LocationView.report("Deleted location", location, items: items, session: session, extra: extra)
    return ExitStatus.done
  }
}
