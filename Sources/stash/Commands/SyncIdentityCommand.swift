import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash sync new-identity`: give this device folder its own device id, keeping its data.
///
/// For a folder restored from a backup (or copied) onto a second machine: both copies sync as
/// the same device until one of them runs this. `stash sync` says when it is needed.
enum SyncNewIdentityCommand: StashHandler {
  static let path = ["sync", "new-identity"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    guard device.folder.hasInventory else {
      throw StashError.refused("'\(session.home)' has no inventory yet; nothing to rename")
    }
    let report = try device.folder.takeNewIdentity()
    if session.wantsJSON {
      session.output.json([
        "previous": .string(report.previous.rawValue), "device": .string(report.current.rawValue),
        "versionsToExport": .integer(Int64(report.versionsToExport)),
      ])
    } else {
      session.output.lines([
        "This device is now '\(report.current.rawValue)' (it was "
          + "'\(report.previous.rawValue)'); all its data stays",
        "The next 'stash sync' exports \(Format.count(report.versionsToExport, "version")) "
          + "under the new identity",
      ])
    }
    return ExitStatus.done
  }
}
