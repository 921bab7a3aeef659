import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash sync verify [--json]`: compare this device with what the shared folder holds, name
/// every record that differs; exit 0 when they are the same, 5 when they differ.
enum SyncVerifyCommand: StashHandler {
  static let path = ["sync", "verify"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForSyncing()
    let result = try device.verify()
    if session.wantsJSON {
      session.output.json(json(result))
    } else {
      session.output.lines(lines(result, output: session.output))
    }
    return result.isInSync ? ExitStatus.done : ExitStatus.differs
  }

  static func lines(_ result: SyncVerification, output: Output) -> [String] {
    var lines = [
      "This device:   " + DigestView.summary(result.here),
      "Shared folder: " + DigestView.summary(result.there),
    ]
    if result.pendingExports > 0 {
      lines.append(
        "Waiting to export: \(Format.count(result.pendingExports, "version")) in the mirror, "
          + "not in the shared folder yet")
    }
    if result.unreadSegments > 0 {
      lines.append(
        "Not imported yet: \(Format.count(result.unreadSegments, "segment")) (compared as if "
          + "imported)")
    }
    for note in result.waiting {
      lines.append("Waiting for the sync tool: '\(note.file)': \(note.reason)")
    }
    for note in result.rejected {
      lines.append("Rejected by every sync: '\(note.file)': \(note.reason)")
    }
    for zone in result.otherZones { lines += OtherZoneView.lines(zone) }
    for photo in result.photosToPublish { lines.append(OtherZoneView.line(photo)) }
    if result.isInSync {
      lines.append("In sync: this device holds exactly what the shared folder holds")
      return lines
    }
    guard !result.differences.isEmpty else {
      lines.append("Not in sync: what is named above keeps this device and the shared folder apart")
      return lines
    }
    lines.append(
      "Different: \(Format.count(result.differences.count, "record")); 'stash sync' exchanges "
        + "them ('stash conflicts' for a conflict)")
    var table = TextTable(headers: ["RECORD", "DIFFERENCE", "HERE", "SHARED FOLDER"])
    for difference in result.differences {
      let id = String(difference.key.id.rawValue.prefix(8))
      let record =
        "\(difference.key.model) " + (difference.name.map { "'\($0)' (\(id))" } ?? id)
      table.rows.append([
        record, difference.kind.rawValue, entry(difference.here), entry(difference.there),
      ])
    }
    let rendered = table.render()
    lines += ["  " + output.heading(rendered[0])] + rendered.dropFirst().map { "  " + $0 }
    return lines
  }

  /// `85e4c1d2a3b4`, `deleted 9f8e7d6c5b4a`, or `-`.
  static func entry(_ entry: InventoryDigest.Entry?) -> String {
    guard let entry else { return "-" }
    return (entry.isTombstone ? "deleted " : "") + entry.hash.short
  }

  static func entryJSON(_ entry: InventoryDigest.Entry?) -> JSONValue {
    guard let entry else { return .null }
    return .object([
      "state": .string(entry.isTombstone ? "deleted" : "live"), "hash": .string(entry.hash.hex),
    ])
  }

  static func json(_ result: SyncVerification) -> JSONObject {
    [
      "inSync": .bool(result.isInSync),
      "here": DigestView.json(result.here),
      "sharedFolder": DigestView.json(result.there),
      "pendingExports": .integer(Int64(result.pendingExports)),
      "unreadSegments": .integer(Int64(result.unreadSegments)),
      "waiting": .array(result.waiting.map(SyncStatusCommand.note)),
      "rejected": .array(result.rejected.map(SyncStatusCommand.note)),
      "otherZones": .array(result.otherZones.map(OtherZoneView.json)),
      "photosToPublish": .array(result.photosToPublish.map(OtherZoneView.json)),
      "differences": .array(
        result.differences.map { difference in
          .object([
            "model": .string(difference.key.model), "id": .string(difference.key.id.rawValue),
            "name": difference.name.map { .string($0) } ?? .null,
            "kind": .string(difference.kind.rawValue),
            "here": entryJSON(difference.here), "sharedFolder": entryJSON(difference.there),
          ])
        }),
    ]
  }
}
