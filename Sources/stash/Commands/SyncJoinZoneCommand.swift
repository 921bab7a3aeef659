import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash sync join-zone ZONE`: this device leaves its zone and joins another zone of the
/// shared folder, once a person knows both are one inventory (a zone race's cure).
enum SyncJoinZoneCommand: StashHandler {
  static let path = ["sync", "join-zone"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForSyncing()
    let report = try device.folder.joinZone(arguments[CommandTable.zone])
    if session.wantsJSON {
      session.output.json([
        "zone": .string(report.zone), "previousZone": .string(report.previous),
        "versionsToExport": .integer(Int64(report.versionsToExport)),
      ])
    } else {
      session.output.lines([
        "This device now syncs zone '\(report.zone)' (it synced '\(report.previous)'); all its "
          + "data stays",
        "The next 'stash sync' reads that zone's changes and exports "
          + "\(Format.count(report.versionsToExport, "version")) there, so its devices get "
          + "everything this device holds",
      ])
    }
    return ExitStatus.done
  }
}
