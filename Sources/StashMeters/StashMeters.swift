import Foundation
import MeterSettings
import Stash
import StashModel

/// `stash-meters`: seed 000's meter settings from the command line, an example of a tool with
/// its own schema on Stash's generic sync folder.
@main
enum StashMeters {
  static let usage = """
    Usage: stash-meters [--home DIR] COMMAND
      pair MAC [MODEL]          add a meter (again after 'forget': the same id)
      list                      every meter, its name, unit, lease and sightings
      rename MAC NAME           name a meter
      unit MAC celsius|fahrenheit
      connect MAC               take the connection lease (refused while another holds it)
      disconnect MAC            give it up
      seen MAC [PERIPHERAL]     record a sighting (at most once per 120 s per device)
      forget MAC                delete a meter's settings
      sync enable DIR           sync through a shared folder from the next run
      sync                      import, reconcile, export
      conflicts                 the open conflicts
      resolve ID local|mirror|deleted
    """

  static func main() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var home = ProcessInfo.processInfo.environment["STASH_METERS_HOME"] ?? "meters"
    if arguments.first == "--home", arguments.count >= 2 {
      home = arguments[1]
      arguments.removeFirst(2)
    }
    do {
      let meters = try MeterFolder(
        at: home, options: .init(clock: { Timestamp.now() }))
      importLegacyData(into: meters)
      try run(arguments, on: meters)
    } catch let error as StashError {
      FileHandle.standardError.write(Data((error.message + "\n").utf8))
      exit(error.category == .busy ? 3 : error.category == .damaged ? 4 : 1)
    } catch {
      FileHandle.standardError.write(Data(("\(error)\n").utf8))
      exit(2)
    }
  }

  /// Imports seed 001's legacy key-value store once, saying so on standard error; a file that
  /// cannot be imported is reported on every run and blocks nothing.
  static func importLegacyData(into meters: MeterFolder) {
    do {
      if let imported = try meters.importLegacyData() {
        FileHandle.standardError.write(Data((imported.description + "\n").utf8))
      }
    } catch {
      FileHandle.standardError.write(Data((error.message + "\n").utf8))
    }
  }

  struct Usage: Error, CustomStringConvertible {
    var description: String { StashMeters.usage }
  }

  static func run(_ arguments: [String], on meters: MeterFolder) throws {
    switch (arguments.first, arguments.count) {
    case ("pair", 2), ("pair", 3):
      let meter = try meters.pair(mac: arguments[1], modelType: arguments.dropFirst(2).first)
      print("Paired \(meter.macAddress) (\(meter.id.rawValue.prefix(8)))")
    case ("list", 1):
      for meter in meters.meters {
        let lease = meter.lease.map { " connected on \($0.deviceName)" } ?? ""
        let seen = meters.sightings(of: meter).map { "\($0.deviceName)" }
        print(
          "\(meter.macAddress)  \(meter.name ?? "-")  \(meter.modelType ?? "-")  "
            + "\(meter.temperatureUnit?.rawValue ?? "-")\(lease)"
            + (seen.isEmpty ? "" : "  seen by \(seen.joined(separator: ", "))"))
      }
    case ("rename", 3): try meters.rename(mac: arguments[1], to: arguments[2])
    case ("unit", 3): try meters.setTemperatureUnit(mac: arguments[1], to: arguments[2])
    case ("connect", 2):
      let lease = try meters.connect(mac: arguments[1])
      print("Connected until \(lease.expiresAt.date.ISO8601Format())")
    case ("disconnect", 2): try meters.disconnect(mac: arguments[1])
    case ("seen", 2), ("seen", 3):
      let written = try meters.sighted(
        mac: arguments[1], peripheralName: arguments.dropFirst(2).first)
      print(written ? "Recorded" : "Seen less than 120 s ago; not recorded again")
    case ("forget", 2): try meters.forget(mac: arguments[1])
    case ("sync", 3) where arguments[1] == "enable":
      try meters.folder.enableSync(cloud: arguments[2])
    case ("sync", 1):
      let report = try meters.folder.sync()
      print(
        "Imported \(report.versionsImported), applied \(report.appliedLocally), exported "
          + "\(report.versionsExported), \(report.newConflicts.count) new conflicts")
    case ("conflicts", 1):
      for conflict in meters.folder.conflicts() {
        print("\(conflict.id.short)  \(conflict.key)  \(conflict.kind)")
      }
    case ("resolve", 3):
      let choice: ResolutionChoice
      switch arguments[2] {
      case "local": choice = .local
      case "mirror": choice = .mirror
      case "deleted": choice = .deleted
      default: throw Usage()
      }
      try meters.folder.resolveConflict(arguments[1], keep: choice)
    default:
      throw Usage()
    }
  }
}
