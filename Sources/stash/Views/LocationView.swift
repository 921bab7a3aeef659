import Stash
import StashModel

/// How locations look on standard output.
enum LocationView {
  /// The `stash location list` table.
  static func table(_ locations: [Location], items: [RecordID: Int], output: Output) -> [String] {
    var table = TextTable(
      headers: ["ID", "NAME", "ITEMS", "COORDINATES", "RADIUS"], rightAligned: [2, 4])
    for location in locations {
      table.rows.append([
        Format.short(location.id), location.name, "\(items[location.id] ?? 0)",
        coordinates(location), location.radius.map { Format.number($0) + " m" } ?? "",
      ])
    }
    let lines = table.render()
    return [output.heading(lines[0])] + lines.dropFirst()
  }

  /// `52.3702, 4.8952`, or empty.
  static func coordinates(_ location: Location) -> String {
    guard let latitude = location.latitude, let longitude = location.longitude else { return "" }
    return "\(Format.number(latitude)), \(Format.number(longitude))"
  }

  /// `'shop' (9c1e2f3a) at 52.3702, 4.8952 within 150 m`.
  static func summary(_ location: Location) -> String {
    var text = "'\(location.name)' (\(Format.short(location.id)))"
    let place = coordinates(location)
    if !place.isEmpty { text += " at " + place }
    if let radius = location.radius { text += " within \(Format.number(radius)) m" }
    return text
  }

  /// What a command that changed a location prints: a sentence, or the location as JSON.
  static func report(
    _ verb: String, _ location: Location, items: Int, session: Session, extra: String = ""
  ) {
    if session.wantsJSON {
      session.output.json(RecordJSON.location(location, items: items))
    } else {
      session.output.line(verb + " " + summary(location) + extra)
    }
  }

  /// How many items each location keeps.
  static func itemCounts(_ device: DeviceFolder) -> [RecordID: Int] {
    var counts = [RecordID: Int]()
    for item in device.items() {
      if let id = item.locationID { counts[id, default: 0] += 1 }
    }
    return counts
  }
}
