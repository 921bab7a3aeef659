import Dispatch
import Synchronization

/// Pure work started on another core, whose result the caller collects later with
/// ``wait()``: a derived file's bytes built while the calling thread goes on with the next
/// step (the work must not touch files or shared state, as for ``Parallel``).
public final class Background<Value: Sendable>: Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let value = Mutex<Value?>(nil)

  /// Starts `work` on another thread (the calling thread does it at once on a machine with
  /// one core).
  public init(_ work: @escaping @Sendable () -> Value) {
    guard Parallel.processorCount > 1 else {
      finish(work())
      return
    }
    DispatchQueue.global().async { self.finish(work()) }
  }

  private func finish(_ result: Value) {
    value.withLock { $0 = result }
    done.signal()
  }

  /// The work's result, waiting for it to finish; every call returns the same value.
  public func wait() -> Value {
    if let ready = value.withLock({ $0 }) { return ready }
    done.wait()
    done.signal()  // a later call finds the value set
    return value.withLock { $0! }
  }
}
