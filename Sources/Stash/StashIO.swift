import Dispatch
import Synchronization

/// Where the facade's `async` forms (``SyncFolder/async``) and a folder's change observation
/// (``SyncFolder/changes(polling:)``) run their blocking file I/O: Stash's own threads, never
/// the caller's actor nor Swift's cooperative pool.
///
/// A save writes with fsync and may wait up to the lock's timeout for another process: on the
/// main actor that would freeze an app, and on the cooperative pool it would hold one of its
/// few threads. The work runs on a concurrent dispatch queue of its own, which grows threads
/// as work blocks; the caller's task suspends until it is done.
public enum StashIO {
  /// The mark the queue carries (``isCurrent`` reads it).
  static let mark = DispatchSpecificKey<Bool>()
  /// The queue the blocking work runs on.
  static let queue: DispatchQueue = {
    let queue = DispatchQueue(label: "org.stash.io", qos: .userInitiated, attributes: .concurrent)
    queue.setSpecific(key: mark, value: true)
    return queue
  }()

  /// Whether the calling code runs on Stash's I/O queue (for tests and assertions: an app's
  /// save observer can check where a save's work ran).
  public static var isCurrent: Bool { DispatchQueue.getSpecific(key: mark) == true }

  /// Runs `work` on Stash's I/O queue and suspends the caller until it returns.
  ///
  /// Work that has not started when the task is cancelled does not start: it throws the
  /// refusal ``cancelled``. Work that started runs to its end (a save is never cut short:
  /// it either commits or writes nothing).
  ///
  /// - Throws: ``StashError``: what `work` threw, or ``cancelled``.
  static func run<T: Sendable>(
    _ work: @escaping @Sendable () throws(StashError) -> T
  ) async throws(StashError) -> T {
    let cancelled = Mutex(false)
    let result: Result<T, StashError> = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        queue.async {
          if cancelled.withLock({ $0 }) {
            continuation.resume(returning: .failure(Self.cancelled))
            return
          }
          do throws(StashError) {
            continuation.resume(returning: .success(try work()))
          } catch {
            continuation.resume(returning: .failure(error))
          }
        }
      }
    } onCancel: {
      cancelled.withLock { $0 = true }
    }
    return try result.get()
  }

  /// What an `async` form throws when its task was cancelled before its work started.
  public static var cancelled: StashError {
    StashError(.refused, "Cancelled before anything was done; nothing was changed")
  }
}
