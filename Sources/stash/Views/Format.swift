import Foundation
import StashModel

/// Small, shared ways of writing values for people.
enum Format {
  /// `4 tube`, or `4` for an item without a unit.
  static func quantity(_ count: Int64, unit: String) -> String {
    unit.isEmpty ? "\(count)" : "\(count) \(unit)"
  }

  /// The first eight characters of an id, enough to type it back (4+ are accepted).
  static func short(_ id: RecordID) -> String {
    String(id.rawValue.prefix(8))
  }

  /// A moment in UTC, such as `2025-11-29T18:40:00Z`.
  static func time(_ timestamp: Timestamp) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: timestamp.date)
  }

  /// A number without a pointless `.0`: `150`, `52.3702`.
  static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  /// `1 item` or `3 items`.
  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }
}
