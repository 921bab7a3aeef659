public import Dispatch
import Foundation
public import Synchronization

/// Pure work spread over the machine's cores, with the result `Array.map` would give.
///
/// A first sync or a second device's import checks, hashes and encodes every one of 100,000
/// records, each on its own. ``map(count:workers:minimumChunk:_:)`` runs such work in
/// chunks on every core and returns the results in index order, so the outcome never
/// depends on scheduling: the same bytes are written, the same first problem is reported.
/// `transform` must be a pure function of its index: no I/O (the stores' file-system seam
/// stays on the calling thread, in order) and no shared mutable state, which `@Sendable`
/// enforces for what it captures.
///
/// Both are inlinable, so that each module compiles them for its own result types: run
/// generic, they asked the runtime for the metadata of `Range` and `Optional` at every index
/// (about 1,100 instructions an index, 2.5% of a first sync).
public enum Parallel {
  /// The cores this process may use, at least 1.
  public static let processorCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

  /// `(0..<count).map(transform)`, computed in chunks that Dispatch runs on the machine's
  /// cores.
  ///
  /// Runs on the calling thread alone when there is too little work for two chunks of
  /// `minimumChunk` indexes or `workers` is 1.
  ///
  /// - Parameters:
  ///   - count: The number of indexes, from 0.
  ///   - workers: How many threads the work is cut up for (a few chunks each); the machine's
  ///     cores by default. Dispatch decides how many run at once.
  ///   - minimumChunk: The fewest indexes worth handing to another thread.
  ///   - transform: The work for one index; pure.
  /// - Returns: The results, in index order.
  @inlinable
  public static func map<Result: Sendable>(
    count: Int, workers: Int = processorCount, minimumChunk: Int = 512,
    _ transform: @Sendable (Int) -> Result
  ) -> [Result] {
    let threads = min(workers, count / max(1, minimumChunk))
    guard threads > 1 else { return (0..<count).map(transform) }
    // A few chunks per thread, so that one slow chunk does not leave a core idle.
    let chunkCount = min(threads * 4, max(threads, count / max(1, minimumChunk)))
    let results = Mutex([[Result]](repeating: [], count: chunkCount))
    DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
      let start = count * chunk / chunkCount
      let end = count * (chunk + 1) / chunkCount
      let part = (start..<end).map(transform)
      results.withLock { $0[chunk] = part }
    }
    return results.withLock { chunks in
      var joined = [Result]()
      joined.reserveCapacity(count)
      for part in chunks { joined.append(contentsOf: part) }
      return joined
    }
  }

  /// The lowest index whose `problem` is not `nil`, with that problem; checked in chunks as
  /// ``map(count:workers:minimumChunk:_:)`` computes.
  ///
  /// - Parameters:
  ///   - count: The number of indexes, from 0.
  ///   - workers: How many threads the work is cut up for; the machine's cores by default.
  ///   - problem: The check of one index; pure.
  /// - Returns: The first failing index and its problem, or `nil` when every index passes.
  @inlinable
  public static func firstProblem<Problem: Sendable>(
    count: Int, workers: Int = processorCount, _ problem: @Sendable (Int) -> Problem?
  ) -> (index: Int, problem: Problem)? {
    let found = map(count: count, workers: workers) { index in problem(index) }
    guard let index = found.firstIndex(where: { $0 != nil }), let first = found[index] else {
      return nil
    }
    return (index, first)
  }
}
