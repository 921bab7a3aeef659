import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash doctor [--json] [--repair]`: checks the folder and explains what it finds.
///
/// Without `--repair` it changes nothing (the stores are opened for reading). With it, a
/// damaged last transaction and damaged rows are first moved to side files (named in the
/// output), then the folder is checked.
///
/// Exit status 4 when a store or a photo is damaged, 3 when another process holds the folder,
/// else 0 (warnings and notes, such as open conflicts or dangling references, do not fail).
/// A home that can never be a folder (a file, a link loop) is refused with exit 1 and the
/// message every other command gives: there is no store to call damaged, and "nothing to
/// check" with exit 0 would tell a script the folder is fine while every other command fails.
/// An inventory that cannot even be looked at (a link loop) is damage (exit 4), as for every
/// other command; one that is a folder or a FIFO is listed as damage in the report.
enum DoctorCommand: StashHandler {
  static let path = ["doctor"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    try session.refuseHomeThatIsNotAFolder()
    try session.refuseBrokenInventoryFile(includingKind: false)
    // The report says everything; standard error also warns, as for every command.
    let options = session.options(creating: false)
    let progress = ProgressLine("Checking photos:", environment: session.environment)
    let report: DoctorReport
    do {
      defer { progress.finish() }
      let show = { (checked: Int, total: Int) in progress.report(checked, of: total) }
      report =
        arguments[CommandTable.repair]
        ? try DeviceFolder.repair(at: session.home, options: options, progress: show)
        : try DeviceFolder.examine(at: session.home, options: options, progress: show)
    }
    if session.wantsJSON {
      session.output.json(json(report))
    } else {
      session.output.lines(
        text(report, output: session.output, repairing: arguments[CommandTable.repair]))
    }
    guard report.isDamaged else { return ExitStatus.done }
    let problems = report.findings.filter { $0.severity == .damage }.count
    Failure.printError(
      "The device folder '\(report.home)' is damaged (\(Format.count(problems, "problem"))); "
        + "the report says what to do")
    return ExitStatus.damaged
  }

  private static func text(_ report: DoctorReport, output: Output, repairing: Bool) -> [String] {
    guard report.hasInventory || !report.findings.isEmpty else {
      return ["No inventory at '\(report.home)' yet; nothing to check"]
    }
    var lines = ["Device folder '\(report.home)'"]
    lines += report.repairs
    if repairing && report.repairs.isEmpty { lines.append("Nothing needed setting aside") }
    if report.inventoryOpened {
      lines.append(
        "  inventory  "
          + [
            Format.count(report.items, "item"), Format.count(report.locations, "location"),
            Format.count(report.reminders, "reminder"),
          ].joined(separator: ", "))
      lines.append("  photos     \(report.photosChecked) checked")
      lines.append("  conflicts  \(report.openConflicts) open")
    }
    lines.append("  mirror     \(report.mirror)")
    for finding in report.findings {
      let label = "\(finding.severity.rawValue) (\(finding.area)): "
      switch finding.severity {
      case .damage: lines.append(output.problem(label) + finding.forPerson)
      case .warning: lines.append(output.warning(label) + finding.forPerson)
      case .note: lines.append(label + finding.forPerson)
      }
    }
    let damage = report.findings.filter { $0.severity == .damage }.count
    lines.append(
      damage == 0
        ? "No damage found"
        : "Found damage (\(Format.count(damage, "problem"))); nothing was changed")
    return lines
  }

  private static func json(_ report: DoctorReport) -> JSONValue {
    .object([
      "home": .string(report.home), "damaged": .bool(report.isDamaged),
      "inventory": .bool(report.hasInventory), "opened": .bool(report.inventoryOpened),
      "items": .integer(Int64(report.items)), "locations": .integer(Int64(report.locations)),
      "reminders": .integer(Int64(report.reminders)),
      "openConflicts": .integer(Int64(report.openConflicts)),
      "photosChecked": .integer(Int64(report.photosChecked)), "mirror": .string(report.mirror),
      "repairs": .array(report.repairs.map { .string($0) }),
      "findings": .array(
        report.findings.map {
          .object([
            "severity": .string($0.severity.rawValue), "area": .string($0.area),
            "message": .string($0.forPerson),
          ])
        }),
    ])
  }
}
