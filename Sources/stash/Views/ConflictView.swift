import Stash
import StashBase
import StashModel

/// How conflicts look on standard output.
enum ConflictView {
  /// `item 'Koleston 7/1'` (the label from the first side that has one: its schema's first
  /// lookup field, an item's name, a reminder's message), or `item 3f2b8c1e`.
  static func record(_ conflict: SyncConflict) -> String {
    let names = conflict.sides.compactMap { $0.snapshot?.record?.lookupName }
    let id = Format.short(conflict.key.id)
    return "\(conflict.key.model) " + (names.first.map { "'\($0)' (\(id))" } ?? id)
  }

  /// One side in a few words: `this device 1a2b3c4d5e6f`, `salon-iphone deleted 9f8e7d6c5b4a`,
  /// `the shared folder absent`.
  static func side(_ side: ConflictSide, device: DeviceFolder) -> String {
    let who = device.folder.sideName(side)
    guard let snapshot = side.snapshot else { return "\(who) absent" }
    let deleted = snapshot.isTombstone ? "deleted " : ""
    return "\(who) \(deleted)\(snapshot.hash.short)"
  }

  /// The `stash conflicts` table.
  static func table(_ conflicts: [SyncConflict], device: DeviceFolder, output: Output) -> [String] {
    var table = TextTable(headers: ["ID", "RECORD", "KIND", "SIDES"])
    for conflict in conflicts {
      table.rows.append([
        conflict.id.short, record(conflict), conflict.kind.rawValue,
        conflict.sides.map { side($0, device: device) }.joined(separator: ", "),
      ])
    }
    let lines = table.render()
    return [output.heading(lines[0])] + lines.dropFirst()
  }

  /// The `stash conflicts show` page: what kind of conflict it is and what to do, who holds
  /// each side, and only the fields in which the sides differ (every side in full is in
  /// `--json`).
  static func details(_ conflict: SyncConflict, device: DeviceFolder) -> [String] {
    var lines = [
      "Conflict \(conflict.id) on \(record(conflict))", device.folder.explanation(of: conflict),
    ]
    var header: [(String, String)] = [("kind", conflict.kind.rawValue)]
    if !conflict.fields.isEmpty {
      header.append(("fields", conflict.fields.joined(separator: ", ")))
    }
    header += [("state", conflict.state.rawValue), ("noticed", Format.time(conflict.noticedAt))]
    if let resolution = conflict.resolution {
      header.append(
        ("resolved", "kept \(resolution.choice) on \(Format.time(resolution.at))"))
    }
    lines += aligned(header, indent: "  ")
    lines.append("")
    lines.append("Sides:")
    var sideRows = [(String, String)]()
    for (index, side) in conflict.sides.enumerated() {
      let state: String
      switch side.snapshot {
      case nil: state = "absent (no row and no deletion)"
      case .tombstone(let tombstone)?:
        state = "deleted on \(Format.time(tombstone.deletedAt)), hash \(tombstone.hash.short)"
      case .record(let record)?: state = "hash \(record.snapshotHash.short)"
      }
      sideRows.append(("\(index + 1). \(device.folder.sideName(side))", state))
    }
    lines += aligned(sideRows, indent: "  ")
    let differences = device.folder.differences(in: conflict)
    if !differences.isEmpty {
      lines.append("")
      var table = TextTable(headers: ["FIELD"] + conflict.sides.indices.map { "SIDE \($0 + 1)" })
      for difference in differences {
        table.rows.append([difference.field] + difference.values.map(text))
      }
      lines += table.render().map { "  " + $0 }
    }
    if conflict.state == .open {
      lines.append("")
      lines.append(
        "Keep one with 'stash conflicts resolve \(conflict.id.short) --keep "
          + "local|mirror|deleted|HASH'")
    }
    return lines
  }

  /// A field's value for a person: dates as dates, a counter as its value, absent as `-`.
  static func text(_ value: FieldValue?) -> String {
    switch value {
    case nil, .none?: "-"
    case .string(let text)?: text.isEmpty ? "\"\"" : text
    case .integer(let number)?: "\(number)"
    case .counter(let counter)?: counter.value.map { "\($0)" } ?? "?"
    case .double(let number)?: Format.number(number)
    case .date(let time)?: Format.time(time)
    case .bool(let flag)?: flag ? "yes" : "no"
    case .blob(let blob)?: "photo \(blob.digest.hex.prefix(12))"
    case .reference(let id)?: Format.short(id)
    case .bytes(let bytes)?: "\(bytes.count) bytes"
    }
  }

  /// A conflict in the table's terms: id, record, kind, state and each side's hash.
  static func summaryJSON(_ conflict: SyncConflict, device: DeviceFolder) -> JSONValue {
    .object([
      "id": .string(conflict.id.rawValue), "model": .string(conflict.key.model),
      "recordID": .string(conflict.key.id.rawValue), "kind": .string(conflict.kind.rawValue),
      "fields": .array(conflict.fields.map { .string($0) }),
      "state": .string(conflict.state.rawValue),
      "noticedAt": .string(Format.isoTime(conflict.noticedAt)),
      "sides": .array(conflict.sides.map { .object(sideJSON($0, full: false, device: device)) }),
    ])
  }

  /// The whole conflict as the store holds it, each side with its hash.
  static func fullJSON(_ conflict: SyncConflict, device: DeviceFolder) -> JSONValue {
    var object = JSONObject()
    for (key, value) in conflict.json {
      if key == "sides" {
        object.append(
          key, .array(conflict.sides.map { .object(sideJSON($0, full: true, device: device)) }))
      } else {
        object.append(key, value)
      }
    }
    return .object(object)
  }

  private static func sideJSON(
    _ side: ConflictSide, full: Bool, device: DeviceFolder
  ) -> JSONObject {
    var object: JSONObject = [
      "origin": .string(side.origin.rawValue),
      "author": side.author.map { .string($0.rawValue) } ?? .null,
      "holder": .string(device.folder.sideName(side)),
      "hash": side.snapshot.map { .string($0.hash.hex) } ?? .null,
      "state": .string(side.snapshot.map { $0.isTombstone ? "deleted" : "live" } ?? "absent"),
    ]
    if full { object.append("snapshot", side.snapshot.map { .object($0.json) } ?? .null) }
    return object
  }

  private static func aligned(_ rows: [(String, String)], indent: String) -> [String] {
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { label, value in
      indent + label + String(repeating: " ", count: width - label.count) + "  " + value
    }
  }
}
