import ArgumentParsing
import Foundation
import MeterSettings
import Stash
import StashModel

/// `stash-meters`: seed 000's meter settings from the command line, an example of a tool with
/// its own schema on Stash's generic sync folder.
@main
enum StashMeters {
  static func main() {
    exit(run(Array(CommandLine.arguments.dropFirst())))
  }

  /// Parses and runs one command line: 0 done (and `--help`, `--version`), 1 refused,
  /// 2 usage (the message ends with `See 'stash-meters … --help'`), 3 busy, 4 damaged.
  static func run(_ arguments: [String]) -> Int32 {
    let parser = ArgumentParser(root: MetersCommandTable.root)
    let parsed: ParsedArguments
    do {
      switch try parser.parse(arguments) {
      case .help(let text):
        print(text)
        return 0
      case .version:
        print("stash-meters \(MetersCommandTable.version)")
        return 0
      case .command(let command): parsed = command
      }
    } catch {
      if error.kind == .missingSubcommand, let help = parser.help(for: error.path) {
        printError(help)
      }
      printError(error.message)
      printError(error.helpHint)
      return 2
    }
    let home =
      parsed[MetersCommandTable.home] ?? ProcessInfo.processInfo.environment["STASH_METERS_HOME"]
      ?? "meters"
    do {
      let meters = try MeterFolder(at: home, options: .init(clock: { Timestamp.now() }))
      importLegacyData(into: meters)
      try run(parsed, on: meters)
      return 0
    } catch {
      printError(error.message)
      return error.category == .busy ? 3 : error.category == .damaged ? 4 : 1
    }
  }

  static func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Imports seed 001's legacy key-value store once, saying so on standard error; a file that
  /// cannot be imported is reported on every run and blocks nothing.
  static func importLegacyData(into meters: MeterFolder) {
    do {
      if let imported = try meters.importLegacyData() { printError(imported.description) }
    } catch {
      printError(error.message)
    }
  }

  static func run(_ arguments: ParsedArguments, on meters: MeterFolder) throws(StashError) {
    typealias Table = MetersCommandTable
    var mac: String { arguments[Table.mac] }
    switch arguments.path {
    case ["pair"]:
      let meter = try meters.pair(mac: mac, modelType: arguments[Table.model])
      print("Paired \(meter.macAddress) (\(meter.id.rawValue.prefix(8)))")
    case ["list"]:
      for meter in meters.meters {
        let lease = meter.lease.map { " connected on \($0.deviceName)" } ?? ""
        let seen = meters.sightings(of: meter).map { "\($0.deviceName)" }
        print(
          "\(meter.macAddress)  \(meter.name ?? "-")  \(meter.modelType ?? "-")  "
            + "\(meter.temperatureUnit?.rawValue ?? "-")\(lease)"
            + (seen.isEmpty ? "" : "  seen by \(seen.joined(separator: ", "))"))
      }
    case ["rename"]: try meters.rename(mac: mac, to: arguments[Table.name])
    case ["unit"]: try meters.setTemperatureUnit(mac: mac, to: arguments[Table.unit])
    case ["connect"]:
      let lease = try meters.connect(mac: mac)
      print("Connected until \(lease.expiresAt.date.ISO8601Format())")
    case ["disconnect"]: try meters.disconnect(mac: mac)
    case ["seen"]:
      let written = try meters.sighted(mac: mac, peripheralName: arguments[Table.peripheral])
      print(written ? "Recorded" : "Seen less than 120 s ago; not recorded again")
    case ["forget"]: try meters.forget(mac: mac)
    case ["sync", "enable"]: try meters.folder.enableSync(cloud: arguments[Table.folder])
    case ["sync"]:
      let report = try meters.folder.sync()
      print(
        "Imported \(report.versionsImported), applied \(report.appliedLocally), exported "
          + "\(report.versionsExported), \(report.newConflicts.count) new conflicts")
    case ["conflicts"]:
      for conflict in meters.folder.conflicts() {
        print("\(conflict.id.short)  \(conflict.key)  \(conflict.kind)")
      }
    case ["resolve"]:
      let choice: ResolutionChoice =
        switch arguments[Table.side] {
        case "mirror": .mirror
        case "deleted": .deleted
        default: .local
        }
      try meters.folder.resolveConflict(arguments[Table.conflict], keep: choice)
    default:
      throw StashError.refused("'\(arguments.path.joined(separator: " "))' is not implemented")
    }
  }
}
