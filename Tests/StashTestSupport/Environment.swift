import Foundation

/// Knobs that widen or replay randomized tests, read from the environment.
public enum TestEnvironment {
  /// How many seeds a randomized test runs: `STASH_SIM_SEEDS`, else `defaultCount`.
  ///
  /// - Parameter defaultCount: The number used in the default (CI) run.
  public static func seedCount(default defaultCount: Int) -> Int {
    if let text = ProcessInfo.processInfo.environment["STASH_SIM_SEEDS"], let n = Int(text), n > 0 {
      return n
    }
    return defaultCount
  }

  /// The seeds a randomized test should run: only `STASH_SEED` when it is set (to replay one
  /// failure), else `0..<seedCount(default:)`.
  public static func seeds(default defaultCount: Int) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["STASH_SEED"], let seed = UInt64(text) {
      return [seed]
    }
    return (0..<UInt64(seedCount(default: defaultCount))).map { $0 }
  }
}
