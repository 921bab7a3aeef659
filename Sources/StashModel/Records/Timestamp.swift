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
  /// `STASH_NOW` makes scripts and fixtures reproducible.
  public static func now(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Timestamp
  {
    if let text = environment["STASH_NOW"], let seconds = Double(text),
      let fixed = Timestamp(secondsSince1970: seconds)
    {
      return fixed
    }
    return Timestamp(Date())
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
