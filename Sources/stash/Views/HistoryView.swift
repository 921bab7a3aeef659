import Stash
import StashBase
import StashModel

/// How `stash history` looks: one line per version, who and when and what changed.
enum HistoryView {
  /// The table: when, who, what changed.
  static func lines(
    key: RecordKey, events: [HistoryEvent], device: DeviceFolder, output: Output
  ) -> [String] {
    let names = Names(device)
    let name = events.last { $0.record != nil }?.record?.lookupName
    let id = Format.short(key.id)
    var lines = ["History of \(key.model) " + (name.map { "'\($0)' (\(id))" } ?? id)]
    var table = TextTable(headers: ["WHEN", "WHO", "CHANGE"])
    for event in events {
      var change = describe(event, names: names)
      switch (event.version, event.settledBy) {
      case (nil, .merged?): change += " (sent within the merge below)"
      case (nil, .resolved?): change += " (replaced by the resolution below)"
      case (nil, _): change += " (not synced yet)"
      default: break
      }
      table.rows.append([Format.time(event.at), device.deviceName(event.author), change])
    }
    let rendered = table.render()
    lines += ["  " + output.heading(rendered[0])] + rendered.dropFirst().map { "  " + $0 }
    return lines
  }

  /// `created: 5 tube`, `quantity 5 → 4`, `notes edited; brand - → Wella`, `deleted`,
  /// `merged: quantity 4 → 3`, `resolved: quantity 2 → 1`.
  static func describe(_ event: HistoryEvent, names: Names) -> String {
    switch event.kind {
    case .created:
      guard let record = event.record, let item = try? Item(record: record) else {
        return "created"
      }
      return "created: " + Format.quantity(item.quantity, unit: item.unit)
    case .deleted:
      return "deleted"
    case .edited, .merged, .resolved:
      let parts = event.changes.map { change(_: $0, names: names) }
      let text = parts.isEmpty ? "no field changed" : parts.joined(separator: "; ")
      return event.kind == .edited ? text : "\(event.kind.rawValue): \(text)"
    }
  }

  /// One field's change in a few words.
  static func change(_ change: FieldChange, names: Names) -> String {
    switch change.field {
    case "notes": return "notes edited"
    case "photo":
      if change.before == nil || change.before == FieldValue.none { return "photo added" }
      if change.after == nil || change.after == FieldValue.none { return "photo removed" }
      return "photo changed"
    default:
      let (before, after) = (value(change.before, names: names), value(change.after, names: names))
      // A counter whose epoch changed but not its value (a resolution starts a new count).
      if before == after, case .counter? = change.after {
        return "\(change.field) \(after) recounted"
      }
      return "\(change.field) \(before) → \(after)"
    }
  }

  /// A value for a person, a location by its name.
  static func value(_ value: FieldValue?, names: Names) -> String {
    if case .reference(let id)? = value { return Names.text(id, in: names.locations) }
    if case .string(let text)? = value { return text.isEmpty ? "-" : "'\(text)'" }
    return ConflictView.text(value)
  }

  /// `{"model", "id", "name", "events": [...]}`; field values exactly as stored.
  static func json(key: RecordKey, events: [HistoryEvent], device: DeviceFolder) -> JSONValue {
    let name = events.last { $0.record != nil }?.record?.lookupName
    return .object([
      "model": .string(key.model), "id": .string(key.id.rawValue),
      "name": name.map { .string($0) } ?? .null,
      "events": .array(
        events.map { event in
          .object([
            "kind": .string(event.kind.rawValue),
            "author": .object([
              "id": event.author.map { .string($0.rawValue) } ?? .null,
              "name": .string(device.deviceName(event.author)),
            ]),
            "at": .string(Format.isoTime(event.at)),
            "hash": .string(event.hash.hex),
            "version": event.versionHex.map { .string($0) } ?? .null,
            "synced": .bool(event.version != nil),
            "settledBy": event.settledBy.map { .string($0.rawValue) } ?? .null,
            "changes": .array(
              event.changes.map { change in
                .object([
                  "field": .string(change.field),
                  "before": change.before?.json ?? .null, "after": change.after?.json ?? .null,
                ])
              }),
          ])
        }),
    ])
  }
}
