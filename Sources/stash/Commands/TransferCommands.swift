import ArgumentParsing
import Foundation
import Stash
import StashBase
import StashModel

/// `stash export --format csv|jsonl`: every item on standard output, by name.
enum ExportCommand: StashHandler {
  static let path = ["export"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let format = TransferFormat(rawValue: arguments[CommandTable.exportFormat]) ?? .jsonl
    // Opened for no record: the items are read one at a time through the store's index and
    // each line is written as it is made, so an export never holds the whole store.
    let device = try session.openForReading(focus: [])
    let leftOut: [Item]
    if let output = arguments[CommandTable.output] {
      leftOut = try export(device, as: format, toFile: output)
    } else {
      leftOut = try device.export(as: format) { session.output.line($0) }
    }
    for item in leftOut {
      Failure.printError(
        "The photo of '\(item.name)' (\(item.id.rawValue.prefix(8))) is missing or damaged "
          + "here, so it is exported without its photo; 'stash doctor' says more")
    }
    return ExitStatus.done
  }

  /// Writes the export to a new file (never over an existing one), a buffer at a time.
  private static func export(
    _ device: DeviceFolder, as format: TransferFormat, toFile output: String
  )
    throws -> [Item]
  {
    func refusal(_ error: any Error) -> StashError {
      .refused(
        "Cannot write the export to '\(output)' (\(error.localizedDescription)); give a new "
          + "file in a folder that exists")
    }
    // A new file only: an existing one is never overwritten.
    let url = URL(fileURLWithPath: output)
    do { try Data().write(to: url, options: .withoutOverwriting) } catch { throw refusal(error) }
    let file: FileHandle
    do { file = try FileHandle(forWritingTo: url) } catch { throw refusal(error) }
    defer { try? file.close() }
    var buffer = [UInt8]()
    var failure: (any Error)?
    func flush() {
      guard failure == nil, !buffer.isEmpty else { return }
      do { try file.write(contentsOf: buffer) } catch { failure = error }
      buffer.removeAll(keepingCapacity: true)
    }
    let leftOut = try device.export(as: format) { line in
      buffer += line.utf8
      buffer.append(UInt8(ascii: "\n"))
      if buffer.count >= 1 << 16 { flush() }
    }
    flush()
    if let failure { throw refusal(failure) }
    return leftOut
  }
}

/// `stash import FILE`: adds the items of a file `stash export` wrote, all or none.
///
/// The whole file is read and checked before the folder is opened for writing, so a file
/// with one bad line changes nothing (and creates no folder).
enum ImportCommand: StashHandler {
  static let path = ["import"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let reading = try session.openForReading()
    let file = try DeviceFolder.readImport(
      at: arguments[CommandTable.file],
      format: arguments[CommandTable.importFormat].flatMap(TransferFormat.init(rawValue:)),
      now: reading.folder.clock())
    let device = try session.openForWriting(reusing: reading)
    let progress = ProgressLine("Importing", environment: session.environment)
    let report: ImportReport
    do {
      defer { progress.finish() }
      report = try device.importItems(consume file) { done, total in
        progress.report(done, of: total)
      }
    }
    if session.wantsJSON {
      let names = Names(device)
      session.output.json([
        "added": .array(device.items(report.added).map { RecordJSON.item($0, names: names) }),
        "alreadyHere": .integer(Int64(report.alreadyHere)),
        "locationsCreated": .array(report.locationsCreated.map { .string($0.name) }),
        "photosLeftOff": .integer(Int64(report.photosLeftOff)),
      ])
      return ExitStatus.done
    }
    var text = "Imported \(Format.count(report.added.count, "item"))"
    if report.alreadyHere > 0 { text += "; \(report.alreadyHere) already here were left alone" }
    if !report.locationsCreated.isEmpty {
      text +=
        "; created "
        + report.locationsCreated.map { "'\($0.name)'" }
        .joined(separator: ", ")
    }
    if report.photosLeftOff > 0 {
      text +=
        "; left off \(Format.count(report.photosLeftOff, "photo")) whose bytes are not in this "
        + "folder"
    }
    session.output.line(text)
    return ExitStatus.done
  }
}
