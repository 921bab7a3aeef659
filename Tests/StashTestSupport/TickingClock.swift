public import StashModel

/// A clock for tests that moves forward one second each time it is read, or (frozen) never
/// moves, as `STASH_NOW` does: then a record that returns to an earlier state is byte for byte
/// the earlier snapshot.
public final class TickingClock: Sendable {
  private let seconds: LockedBox<Double>
  private let isFrozen: Bool

  /// A clock whose first reading is one second after `start` (or exactly `start`, frozen).
  public init(start: Timestamp, frozen: Bool = false) {
    seconds = LockedBox(start.secondsSince1970)
    isFrozen = frozen
  }

  /// The next moment.
  public func tick() -> Timestamp {
    let frozen = isFrozen
    return Timestamp(
      secondsSince1970: seconds.withLock { value in
        if !frozen { value += 1 }
        return value
      })!
  }

  /// The current moment, without moving the clock.
  public var now: Timestamp { Timestamp(secondsSince1970: seconds.withLock { $0 })! }
}
