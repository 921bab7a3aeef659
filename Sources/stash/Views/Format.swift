import Foundation
import StashBase
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

  /// A moment for a person, in the local time zone (`TZ`), with its offset:
  /// `2025-11-29 19:40:00 +01:00`, or `2025-11-29 18:40:00 +00:00` in UTC. Whole seconds:
  /// the exact value is in `--json`.
  ///
  /// Written from the C library's `localtime_r` (the same zone rules Foundation reads): a
  /// `DateFormatter` took longer to load than the rest of a one-record command at 100,000
  /// items. Years outside 1...9999 and offsets that are not whole minutes go through
  /// `DateFormatter` as before.
  static func time(_ timestamp: Timestamp) -> String {
    let seconds = timestamp.secondsSince1970.rounded(.down)
    var parts = tm()
    if abs(seconds) < 253_402_300_800, var clock = time_t(exactly: seconds),
      localtime_r(&clock, &parts) != nil, (1...9999).contains(parts.tm_year + 1900),
      parts.tm_gmtoff % 60 == 0
    {
      let offset = abs(Int(parts.tm_gmtoff)) / 60
      return padded(Int(parts.tm_year) + 1900, width: 4) + "-" + padded(Int(parts.tm_mon) + 1)
        + "-" + padded(Int(parts.tm_mday)) + " " + padded(Int(parts.tm_hour)) + ":"
        + padded(Int(parts.tm_min)) + ":" + padded(Int(parts.tm_sec)) + " "
        + (parts.tm_gmtoff < 0 ? "-" : "+") + padded(offset / 60) + ":" + padded(offset % 60)
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.timeZone = TimeZone.current
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
    return formatter.string(from: timestamp.date)
  }

  /// `number` in decimal, zero-padded to `width` digits.
  private static func padded(_ number: Int, width: Int = 2) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  /// `time(_:)`, or `-` for no time.
  static func time(_ timestamp: Timestamp?) -> String {
    timestamp.map { time($0) } ?? "-"
  }

  /// A moment in JSON outputs that is not a record field: an ISO-8601 string in UTC with
  /// milliseconds, such as `2025-11-29T18:40:00.000Z` (record fields stay exactly as stored).
  static func isoTime(_ timestamp: Timestamp) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: timestamp.date)
  }

  /// ``isoTime(_:)`` as a JSON value, `null` for no time.
  static func isoTime(_ timestamp: Timestamp?) -> JSONValue {
    timestamp.map { .string(isoTime($0)) } ?? .null
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
