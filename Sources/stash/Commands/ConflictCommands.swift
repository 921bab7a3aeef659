import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash conflicts [--json]`: the open conflicts.
enum ConflictsCommand: StashHandler {
  static let path = ["conflicts"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let conflicts = device.folder.conflicts()
    if session.wantsJSON {
      session.output.json(.array(conflicts.map { ConflictView.summaryJSON($0, device: device) }))
    } else if conflicts.isEmpty {
      session.output.line("No open conflicts")
    } else {
      session.output.lines(ConflictView.table(conflicts, device: device, output: session.output))
    }
    return ExitStatus.done
  }
}

/// `stash conflicts show ID [--json]`: every side's full snapshot with its hash.
enum ConflictsShowCommand: StashHandler {
  static let path = ["conflicts", "show"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let conflict = try device.folder.conflict(arguments[CommandTable.conflictID])
    if session.wantsJSON {
      session.output.json(ConflictView.fullJSON(conflict, device: device))
    } else {
      session.output.lines(ConflictView.details(conflict, device: device))
    }
    return ExitStatus.done
  }
}

/// `stash conflicts resolve ID --keep local|mirror|deleted|VERSION`
///
/// A `--keep` value that is none of these is a usage mistake (exit 2), found before the
/// folder is opened.
enum ConflictsResolveCommand: StashHandler {
  static let path = ["conflicts", "resolve"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let text = arguments[CommandTable.keep]
    guard let choice = ResolutionChoice(text) else {
      throw UsageError(
        .invalidValue,
        message: "Invalid value '\(text)' for '--keep'; use 'local', 'mirror', 'deleted' or "
          + "the first 4 or more hex digits of a side's hash",
        path: path, rootName: CommandTable.root.name)
    }
    let device = try session.openForReading()
    let conflict = try device.folder.resolveConflict(
      arguments[CommandTable.conflictID], keep: choice)
    if session.wantsJSON {
      session.output.json(ConflictView.fullJSON(conflict, device: device))
    } else {
      session.output.line(
        "Resolved conflict '\(conflict.id.short)' on \(ConflictView.record(conflict)), "
          + "keeping \(choice)")
    }
    return ExitStatus.done
  }
}
