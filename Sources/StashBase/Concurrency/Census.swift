import Synchronization

/// Counts events by key while a test watches: the seam that lets a test prove how often
/// something is done (a record hashed, a line decoded), never a clock.
///
/// Off (one relaxed atomic load per event) unless ``counting(_:_:)`` runs. Counts go by key
/// (a model, a file) so that other tests running at the same time, with other keys, add
/// nothing; tests that share a key run serialized.
package final class Census: Sendable {
  /// How many ``counting(_:_:)`` calls are running.
  private let watchers = Atomic<Int>(0)
  /// The counts of the keys being watched.
  private let counts = Mutex<[String: Int]>([:])

  /// A census no one watches yet.
  package init() {}

  /// Counts one event of `key`, when it is watched.
  package func note(_ key: String) {
    guard watchers.load(ordering: .relaxed) > 0 else { return }
    counts.withLock { counts in
      if let current = counts[key] { counts[key] = current + 1 }
    }
  }

  /// Runs `body` and returns how many events of `key` it (and any thread meanwhile) noted.
  package func counting<T>(
    _ key: String, _ body: () throws -> T
  ) rethrows -> (result: T, count: Int) {
    counts.withLock { $0[key] = 0 }
    watchers.add(1, ordering: .sequentiallyConsistent)
    defer {
      watchers.subtract(1, ordering: .sequentiallyConsistent)
      counts.withLock { $0[key] = nil }
    }
    let result = try body()
    return (result, counts.withLock { $0[key] ?? 0 })
  }
}
