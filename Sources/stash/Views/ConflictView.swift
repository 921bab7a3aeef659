import Stash
import StashModel

/// How conflicts look on standard output.
enum ConflictView {
  /// `item 'Koleston 7/1'` (the name from the first side that has one), or `item 3f2b8c1e`.
  static func record(_ conflict: SyncConflict) -> String {
    let names = conflict.sides.compactMap { side -> String? in
      guard case .string(let name)? = side.snapshot?.record?[field: "name"] else { return nil }
      return name
    }
    let id = Format.short(conflict.key.id)
    return "\(conflict.key.model) " + (names.first.map { "'\($0)' (\(id))" } ?? id)
  }

  /// One side in a few words: `local 1a2b3c4d5e6f`, `mirror deleted 9f8e7d6c5b4a`,
  /// `mirror absent`.
  static func side(_ side: ConflictSide) -> String {
    guard let snapshot = side.snapshot else { return "\(side.origin.rawValue) absent" }
    let deleted = snapshot.isTombstone ? "deleted " : ""
    return "\(side.origin.rawValue) \(deleted)\(snapshot.hash.short)"
  }

  /// The `stash conflicts` table.
  static func table(_ conflicts: [SyncConflict], output: Output) -> [String] {
    var table = TextTable(headers: ["ID", "RECORD", "KIND", "SIDES"])
    for conflict in conflicts {
      table.rows.append([
        conflict.id.short, record(conflict), conflict.kind.rawValue,
        conflict.sides.map(side).joined(separator: ", "),
      ])
    }
    let lines = table.render()
    return [output.heading(lines[0])] + lines.dropFirst()
  }

  /// The `stash conflicts show` page: the conflict, then every side's full snapshot.
  static func details(_ conflict: SyncConflict) -> [String] {
    var lines = ["Conflict \(conflict.id) on \(record(conflict))"]
    var header: [(String, String)] = [
      ("record", "\(conflict.key.model) \(conflict.key.id)"),
      ("kind", conflict.kind.rawValue), ("state", conflict.state.rawValue),
      ("noticed", Format.time(conflict.noticedAt)),
    ]
    if let resolution = conflict.resolution {
      header.append(
        (
          "resolved",
          "kept \(resolution.choice) on \(Format.time(resolution.at)) by \(resolution.by)"
        ))
    }
    lines += aligned(header, indent: "  ")
    for (index, side) in conflict.sides.enumerated() {
      lines.append("")
      var title = "Side \(index + 1): \(side.origin.rawValue)"
      if let author = side.author { title += ", written by device \(author)" }
      guard let snapshot = side.snapshot else {
        lines.append(title + ": absent (no row and no tombstone)")
        continue
      }
      switch snapshot {
      case .record(let record):
        lines.append(title + ", hash \(snapshot.hash.hex)")
        lines += aligned(
          record.fieldsJSON().map { ($0.key, text($0.value)) }, indent: "  ")
      case .tombstone(let tombstone):
        lines.append(title + ": deleted, hash \(snapshot.hash.hex)")
        lines += aligned(
          [
            ("deletedAt", Format.time(tombstone.deletedAt)),
            ("deletedHash", tombstone.deletedHash.hex),
          ], indent: "  ")
      }
    }
    if conflict.state == .open {
      lines.append("")
      lines.append(
        "Keep one with 'stash conflicts resolve \(conflict.id.short) --keep "
          + "local|mirror|deleted|HASH'")
    }
    return lines
  }

  /// A conflict in the table's terms: id, record, kind, state and each side's hash.
  static func summaryJSON(_ conflict: SyncConflict) -> JSONValue {
    .object([
      "id": .string(conflict.id.rawValue), "model": .string(conflict.key.model),
      "recordID": .string(conflict.key.id.rawValue), "kind": .string(conflict.kind.rawValue),
      "state": .string(conflict.state.rawValue),
      "noticedAt": .double(conflict.noticedAt.secondsSince1970),
      "sides": .array(conflict.sides.map { .object(sideJSON($0, full: false)) }),
    ])
  }

  /// The whole conflict as the store holds it, each side with its hash.
  static func fullJSON(_ conflict: SyncConflict) -> JSONValue {
    var object = JSONObject()
    for (key, value) in conflict.json {
      if key == "sides" {
        object.append(key, .array(conflict.sides.map { .object(sideJSON($0, full: true)) }))
      } else {
        object.append(key, value)
      }
    }
    return .object(object)
  }

  private static func sideJSON(_ side: ConflictSide, full: Bool) -> JSONObject {
    var object: JSONObject = [
      "origin": .string(side.origin.rawValue),
      "author": side.author.map { .string($0.rawValue) } ?? .null,
      "hash": side.snapshot.map { .string($0.hash.hex) } ?? .null,
      "state": .string(side.snapshot.map { $0.isTombstone ? "deleted" : "live" } ?? "absent"),
    ]
    if full { object.append("snapshot", side.snapshot.map { .object($0.json) } ?? .null) }
    return object
  }

  private static func text(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return JSONWriter.string(value)
  }

  private static func aligned(_ rows: [(String, String)], indent: String) -> [String] {
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { label, value in
      indent + label + String(repeating: " ", count: width - label.count) + "  " + value
    }
  }
}
