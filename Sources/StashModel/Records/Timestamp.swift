public import Foundation

/// A moment as seconds since 1970, kept as the exact `Double` that is hashed and stored.
///
/// Foundation's `Date` keeps seconds since 2001 internally, so converting it to seconds since
/// 1970 and back can change the last bit. Records therefore hold a `Timestamp`, whose
/// `Double` is written to JSON and hashed as its IEEE-754 bit pattern; `Date` is only for
/// display.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Seconds since 1970-01-01T00:00:00Z. Always finite.
  public let secondsSince1970: Double

  /// Wraps a number of seconds since 1970.
  ///
  /// - Parameter secondsSince1970: Must be finite; `nil` otherwise.
  public init?(secondsSince1970: Double) {
    guard secondsSince1970.isFinite else { return nil }
    self.secondsSince1970 = secondsSince1970
  }

  /// The timestamp of a Foundation date.
  public init(_ date: Date) {
    self.secondsSince1970 = date.timeIntervalSince1970
  }

  /// The Foundation date for display.
  public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

  /// The current time, or the time fixed by `STASH_NOW` (seconds since 1970) when set.
  ///
  /// `STASH_NOW` makes scripts and fixtures reproducible. A value ``fixed(environment:)``
  /// refuses is ignored here, so an embedding app never fails for it; the `stash` tool
  /// refuses such a value before it runs a command.
  public static func now(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Timestamp
  {
    if let fixed = try? fixed(environment: environment) { return fixed }
    return Timestamp(Date())
  }

  /// The time `STASH_NOW` fixes, or `nil` when it is unset or empty.
  ///
  /// The value is a number of seconds since 1970 in plain decimal notation: an optional `-`,
  /// digits, and optionally a `.` followed by digits (`1764441600`, `1764441600.25`), from
  /// ``Limits/earliestDate`` through ``Limits/latestDate`` (the years 1 to 9999). Anything
  /// else (`1e9`, `nan`, ` 5`, `+5`, a date beyond the year 9999) is refused rather than
  /// ignored, so a script never runs at a time it did not ask for.
  ///
  /// - Parameter environment: The variables to read.
  /// - Returns: The fixed time, or `nil` for the real clock.
  /// - Throws: ``ModelError`` naming `STASH_NOW` and its value.
  public static func fixed(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ModelError) -> Timestamp? {
    guard let text = environment["STASH_NOW"], !text.isEmpty else { return nil }
    guard let seconds = plainSeconds(text) else {
      throw ModelError(
        "STASH_NOW '\(text)' is not a time; set it to seconds since 1970 in plain digits, "
          + "such as '1764441600', or unset it")
    }
    guard let time = Timestamp(secondsSince1970: seconds),
      (Limits.earliestDate...Limits.latestDate).contains(seconds)
    else {
      throw ModelError(
        "STASH_NOW '\(text)' is not between the years 1 and 9999; set it to seconds since 1970 "
          + "from \(Int64(Limits.earliestDate)) to \(Int64(Limits.latestDate)), or unset it")
    }
    return time
  }

  /// `-`, digits, and optionally `.` and digits, as a `Double`; `nil` for anything else.
  private static func plainSeconds(_ text: String) -> Double? {
    let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    var rest = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
    let whole = rest.prefix(while: isDigit)
    guard !whole.isEmpty else { return nil }
    rest = rest.dropFirst(whole.count)
    if let point = rest.first {
      guard point == UInt8(ascii: "."), rest.count > 1, rest.dropFirst().allSatisfy(isDigit)
      else { return nil }
    }
    return Double(text)
  }

  public var description: String { "\(secondsSince1970)" }

  /// Equal when the bit patterns are equal, so that `-0.0` and `0.0` differ as their hashes do.
  public static func == (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.secondsSince1970.bitPattern == rhs.secondsSince1970.bitPattern
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(secondsSince1970.bitPattern)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.secondsSince1970 < rhs.secondsSince1970
  }
}
