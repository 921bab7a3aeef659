public import StashModel

/// A clock for tests that moves forward one second each time it is read.
public final class TickingClock: Sendable {
  private let seconds: LockedBox<Double>

  /// A clock whose first reading is one second after `start`.
  public init(start: Timestamp) { seconds = LockedBox(start.secondsSince1970) }

  /// The next moment.
  public func tick() -> Timestamp {
    Timestamp(
      secondsSince1970: seconds.withLock { value in
        value += 1
        return value
      })!
  }

  /// The current moment, without moving the clock.
  public var now: Timestamp { Timestamp(secondsSince1970: seconds.withLock { $0 })! }
}
