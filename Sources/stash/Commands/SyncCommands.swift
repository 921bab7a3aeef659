import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash sync [--json]`: import from the shared folder, reconcile, export; say what happened.
///
/// Each run is a fresh process, so its gate starts closed: only this run's finished import
/// lets the reconciler write. An unreachable folder, a damaged mirror or another account's
/// folder fail with a message and change nothing.
enum SyncCommand: StashHandler {
  static let path = ["sync"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    if arguments[CommandTable.watch] { return try SyncWatch.run(arguments, in: session) }
    if arguments[CommandTable.interval] != nil {
      throw UsageError(
        .invalidValue, message: "'--interval' goes with '--watch'", path: path,
        rootName: CommandTable.root.name)
    }
    let report = try sync(in: session)
    if session.wantsJSON {
      session.output.json(json(report))
    } else {
      session.output.lines(lines(report))
    }
    // A pass stopped by a damaged store or a busy folder fails the way every command does
    // (``Failure`` says it and maps it); a refused pass is in the output, and the run is done.
    if let failure = report.passError, failure.category != .refused { throw failure }
    return ExitStatus.done
  }

  /// The sync (the library chooses the cheapest run that is the whole sync), with a progress
  /// line while segments are read.
  static func sync(in session: Session) throws -> SyncRunReport {
    let progress = ProgressLine(
      "Reading the shared folder: segment", environment: session.environment)
    defer { progress.finish() }
    return try session.sync { read, total in progress.report(read, of: total) }
  }

  static func lines(_ report: SyncRunReport) -> [String] {
    var lines = [
      "Imported \(Format.count(report.versionsImported, "version")) from "
        + Format.count(report.segmentsRead, "segment")
    ]
    for waiting in report.waiting { lines.append("Waiting for \(waiting)") }
    for rejected in report.rejectedSegments { lines.append("Rejected \(rejected)") }
    for key in report.missingKeys {
      lines.append(
        "This device lacks the shared folder's key '\(key)' (the key was rotated): what is "
          + "sealed with it waits; enter it with 'stash sync add-key --key-file FILE'")
    }
    if let failure = report.passError?.forPerson {
      lines.append(failure)
    } else if report.passRan {
      lines.append(
        "Applied \(Format.count(report.appliedLocally, "change")) here; copied "
          + "\(Format.count(report.copiedToMirror, "change")) to the mirror")
    } else {
      lines.append("Did not reconcile: the import did not finish successfully")
    }
    if !report.newConflicts.isEmpty {
      lines.append(
        "New conflicts: \(report.newConflicts.count); 'stash conflicts' lists them")
    }
    if report.merged > 0 {
      lines.append(
        "Merged changes made at the same time on \(Format.count(report.merged, "record"))")
    }
    if report.settledConflicts > 0 {
      lines.append("Settled conflicts: \(report.settledConflicts)")
    }
    if report.duplicates > 0 {
      lines.append(
        "Records with duplicate rows (left alone): \(report.duplicates); 'stash doctor' lists them")
    }
    lines.append(
      "Exported \(Format.count(report.versionsExported, "version"))"
        + (report.exportedSegments.isEmpty
          ? "" : " in " + report.exportedSegments.joined(separator: ", ")))
    if let stopped = report.exportStopped {
      lines.append("Export stopped: \(stopped.forPerson)")
    }
    if let failure = report.exportError?.forPerson { lines.append("Export failed: \(failure)") }
    for photo in report.photosMissing {
      lines.append("Photo '\(photo.prefix(12))' is missing here; other devices wait for it")
    }
    for photo in report.photosPublished {
      lines.append("Published photo '\(photo.prefix(12))' again: the shared folder had lost it")
    }
    for zone in report.otherZones { lines += OtherZoneView.lines(zone) }
    return lines
  }

  static func json(_ report: SyncRunReport) -> JSONObject {
    func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    var object = plainJSON(report)
    if !report.missingKeys.isEmpty {
      object.append("missingKeys", .array(report.missingKeys.map { .string($0) }))
    }
    return object
  }

  static func plainJSON(_ report: SyncRunReport) -> JSONObject {
    func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    return [
      "imported": .integer(Int64(report.versionsImported)),
      "segmentsRead": .integer(Int64(report.segmentsRead)),
      "rejectedSegments": .array(report.rejectedSegments.map { .string($0) }),
      "waiting": .array(report.waiting.map { .string($0) }),
      "gateOpened": .bool(report.gateOpened),
      "reconciled": .bool(report.passRan),
      "passFailure": text(report.passError?.forPerson),
      "appliedLocally": .integer(Int64(report.appliedLocally)),
      "copiedToMirror": .integer(Int64(report.copiedToMirror)),
      "newConflicts": .array(report.newConflicts.map { .string($0.rawValue) }),
      "settledConflicts": .integer(Int64(report.settledConflicts)),
      "merged": .integer(Int64(report.merged)),
      "duplicates": .integer(Int64(report.duplicates)),
      "exported": .integer(Int64(report.versionsExported)),
      "segment": text(report.exportedSegment),
      "segments": .array(report.exportedSegments.map { .string($0) }),
      "exportStopped": text(report.exportStopped?.forPerson),
      "exportFailure": text(report.exportError?.forPerson),
      "photosMissing": .array(report.photosMissing.map { .string($0) }),
      "photosPublished": .array(report.photosPublished.map { .string($0) }),
      "otherZones": .array(report.otherZones.map(OtherZoneView.json)),
    ]
  }
}

/// `stash sync enable --cloud DIR`: turn sync on through the shared folder from the next run.
enum SyncEnableCommand: StashHandler {
  static let path = ["sync", "enable"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let cloud = arguments[CommandTable.cloud]
    let encrypt = arguments[CommandTable.encrypt]
    let keyFile = arguments[CommandTable.joinKeyFile]
    if encrypt && keyFile != nil {
      throw UsageError(
        .invalidValue,
        message: "Give either '--encrypt' (a new encrypted folder) or '--key-file' (join one), "
          + "not both",
        path: path, rootName: CommandTable.root.name)
    }
    // The key is read and everything checked before anything is created: a refused folder
    // or key leaves no device folder behind.
    let keys = try keyFile.map(KeyInput.keys(from:))
    let reading = try session.openForReading()
    try reading.folder.checkSharedFolder(cloud)
    if let keys { try reading.folder.checkFolderKeys(keys, at: cloud) }
    if encrypt { try reading.folder.checkNewEncryptedFolder(cloud) }
    let device = try session.openForWriting(reusing: reading)
    var keyReport: KeyChangeReport?
    if let keys {
      keyReport = try device.folder.addFolderKeys(keys, cloud: cloud)
    } else if encrypt {
      keyReport = try device.folder.enableEncryptedSync(cloud: cloud)
    } else {
      try device.folder.enableSync(cloud: cloud)
    }
    let folder = device.folder.settings.cloudFolder ?? ""
    if let keyReport {
      if session.wantsJSON {
        session.output.json(KeyInput.json(keyReport, folder: folder))
        return ExitStatus.done
      }
      session.output.line(
        "Sync will use the encrypted folder '\(folder)' from the next run; run 'stash sync' "
          + "to exchange changes")
      if encrypt { session.output.lines(KeyInput.newKeyLines(keyReport)) }
      if keyReport.versionsToExport > 0 {
        session.output.line(
          "The next sync sends every change this device holds there "
            + "(\(Format.count(keyReport.versionsToExport, "version")))")
      }
    } else if session.wantsJSON {
      session.output.json(["sync": .string("on"), "cloudFolder": .string(folder)])
    } else {
      session.output.line(
        "Sync will use '\(folder)' from the next run; run 'stash sync' to exchange changes")
    }
    return ExitStatus.done
  }
}

/// `stash sync disable`: turn sync off from the next run; the inventory stays.
enum SyncDisableCommand: StashHandler {
  static let path = ["sync", "disable"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let wasOn = device.folder.hasInventory && device.folder.settings.cloudFolder != nil
    if device.folder.hasInventory { try device.folder.disableSync() }
    if session.wantsJSON {
      session.output.json(["sync": .string("off"), "wasOn": .bool(wasOn)])
    } else if !device.folder.hasInventory {
      session.output.line("Sync is already off")
    } else {
      session.output.line("Sync is off from the next run; the inventory on this device stays")
    }
    return ExitStatus.done
  }
}
