import Synchronization

/// A value shared between closures that may run on other threads (observers, tasks).
public final class LockedBox<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  /// A box holding `value`.
  public init(_ value: Value) { self.mutex = Mutex(value) }

  /// Runs `body` with the value, exclusively.
  public func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T {
    mutex.withLock { body(&$0) }
  }
}
