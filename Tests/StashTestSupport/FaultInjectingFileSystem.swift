public import JSONLines
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real file system, with failures injected on cue: the seam tests use to prove that a
/// failed save leaves nothing half-done, and that a crash leaves every file at a commit.
///
/// ```swift
/// let files = FaultInjectingFileSystem()
/// files.inject(.write(keepingBytes: 10))   // the next write stores 10 bytes, then fails
/// files.failCall(17)                       // the 17th call from now fails with EIO
/// files.crash(atCall: 40, .garbled(keepingBytes: 3, garbage: bytes))  // then the power goes
/// ```
/// Every call is logged (``calls``) with its descriptor and path, and a descriptor closed
/// twice is counted (``doubleCloses``): a second close of a number may close a file another
/// thread has opened since.
///
/// `close` and `unlock` cannot fail (the seam's contract: the data was synchronized before,
/// and POSIX says a failed close must not be retried), so they are logged but never failed.
public final class FaultInjectingFileSystem: FileSystem {
  /// A failure to inject into the next matching call.
  public enum Fault: Sendable, Equatable {
    /// The next write stores only its first `keepingBytes` bytes, then fails with EIO.
    case write(keepingBytes: Int)
    /// The next write stores only its first `keepingBytes` bytes, then fails with ENOSPC: the
    /// disk is full.
    case fullDisk(keepingBytes: Int)
    /// The next fsync fails with EIO.
    case synchronize
    /// The next rename fails with EIO (nothing is renamed).
    case rename
    /// The next truncate fails with EIO.
    case truncate
    /// The next write to a file whose path ends in `suffix` fails (nothing is written).
    case writeTo(suffix: String)
    /// Every open of a path ending in `suffix` fails with EACCES (permission denied), for as
    /// long as the fault stays injected (tests run as root, where `chmod` cannot deny).
    case denyOpen(suffix: String)
  }

  /// What happens at the call where the machine stops (``crash(atCall:_:)``).
  public enum Crash: Sendable, Equatable {
    /// The call does not happen.
    case before
    /// A write stores only its first `keepingBytes` bytes (any other call does not happen).
    case torn(keepingBytes: Int)
    /// A write stores its first `keepingBytes` bytes and then `garbage` where the rest should
    /// be, and every other byte written since its file's last fsync (renames followed) turns
    /// to garbage too: what a disk can hold after losing power ("a VFS that garbles unsynced
    /// writes", as SQLite's crash tests do). At a call other than a write, only the latter.
    case garbled(keepingBytes: Int, garbage: [UInt8])
  }

  /// The kinds of calls, as the log names them.
  public enum Operation: String, Sendable, CaseIterable {
    case open, close, read, write, fsync, truncate, stat, rename, link
    case fsyncFolder = "fsync folder"
    case mkdir, remove, list, lock, unlock

    /// Whether the seam lets this call fail.
    public var canFail: Bool { self != .close && self != .unlock }
  }

  /// One logged call.
  public struct Call: Sendable, CustomStringConvertible {
    /// Its number among the failable calls since the file system was made (0 for `close` and
    /// `unlock`, which cannot fail).
    public let number: Int
    /// What it was.
    public let operation: Operation
    /// The path it named, or the path its descriptor was opened with.
    public let path: String
    /// The descriptor it used or returned, if any.
    public let descriptor: Int32?
    /// Whether this call was made to fail (or was where the machine stopped).
    public let failed: Bool
    /// How many bytes a write was asked to write.
    public var length: Int? = nil

    public var description: String {
      "#\(number) \(operation.rawValue) \(path)" + (descriptor.map { " (fd \($0))" } ?? "")
        + (failed ? " FAILED" : "")
    }
  }

  private struct State {
    var pending: [(fault: Fault, skip: Int)] = []
    var counts: [String: Int] = [:]
    var paths: [Int32: String] = [:]
    var calls: [Call] = []
    var numbered = 0
    var failAt: Int?
    var crashAt: (number: Int, crash: Crash)?
    var crashed = false
    var doubleCloses = 0
    var logging = true
    /// Byte ranges written since each file's last fsync, by path (renames followed).
    var unsynced: [String: [Range<Int64>]] = [:]
    /// The garbage to spread over unsynced bytes, once a garbled crash happened.
    var garbling: [UInt8]?
  }

  let base = POSIXFileSystem()
  private let state = Mutex(State())

  /// A file system that behaves like the real one until told otherwise.
  public init() {}

  /// Makes a later matching call fail: the first `skip` matching calls go through.
  public func inject(_ fault: Fault, afterSkipping skip: Int = 0) {
    state.withLock { $0.pending.append((fault, skip)) }
  }

  /// Makes the `number`th failable call from now (1 is the next one) fail with EIO.
  public func failCall(_ number: Int) {
    state.withLock { $0.failAt = $0.numbered + number }
  }

  /// Stops the machine at the `number`th failable call from now: that call does what `crash`
  /// says, and every later call fails without doing anything, as if the power had gone. What
  /// is on disk then is what a crash at that moment leaves (a process kill does the same,
  /// minus the garbage).
  public func crash(atCall number: Int, _ crash: Crash = .before) {
    state.withLock { $0.crashAt = ($0.numbered + number, crash) }
  }

  /// Whether the machine has stopped (see ``crash(atCall:_:)``).
  public var hasCrashed: Bool { state.withLock { $0.crashed } }

  /// Whether every injected one-shot fault, failing call and crash has fired.
  public var allFaultsFired: Bool {
    state.withLock { state in
      state.failAt == nil && state.crashAt == nil
        && state.pending.allSatisfy { if case .denyOpen = $0.fault { true } else { false } }
    }
  }

  /// Removes every injected fault (a crash that happened stays: the machine is off).
  public func clearFaults() {
    state.withLock { state in
      state.pending.removeAll()
      state.failAt = nil
      state.crashAt = nil
    }
  }

  /// How many calls of an operation (`"write"`, `"fsync"`, `"rename"`, ...) were made.
  public func count(_ operation: String) -> Int {
    state.withLock { $0.counts[operation, default: 0] }
  }

  /// How many failable calls were made since the file system was made.
  public var callCount: Int { state.withLock { $0.numbered } }

  /// Every call made, in order (while ``isLogging``).
  public var calls: [Call] { state.withLock { $0.calls } }

  /// Forgets the logged calls.
  public func clearLog() { state.withLock { $0.calls.removeAll() } }

  /// Whether calls are logged (on by default; long workloads may turn it off).
  public var isLogging: Bool {
    get { state.withLock { $0.logging } }
    set { state.withLock { $0.logging = newValue } }
  }

  /// How many times a descriptor was closed that was not open (a double close).
  public var doubleCloses: Int { state.withLock { $0.doubleCloses } }

  // MARK: - Deciding each call's fate

  /// What a call does.
  enum Fate {
    case proceed
    case fail
    /// Only for a write: the machine stops after storing these bytes.
    case stopAfter([UInt8])
    case stop
  }

  func fate(
    _ operation: Operation, _ path: String, descriptor: Int32? = nil,
    bytes: UnsafeRawBufferPointer? = nil, matching match: (Fault) -> Bool = { _ in false }
  ) -> (Fate, Fault?) {
    state.withLock { state in
      state.counts[operation.rawValue, default: 0] += 1
      var number = 0
      var result: (Fate, Fault?) = (.proceed, nil)
      if operation.canFail {
        state.numbered += 1
        number = state.numbered
      }
      if state.crashed {
        result = (.stop, nil)
      } else if operation.canFail, let crash = state.crashAt, crash.number == number {
        state.crashed = true
        state.crashAt = nil
        switch (crash.crash, bytes) {
        case (.torn(let keep), let bytes?):
          result = (.stopAfter(Array(bytes.prefix(keep))), nil)
        case (.garbled(let keep, let garbage), let bytes?):
          let kept = Array(bytes.prefix(keep))
          result = (.stopAfter(kept + garbage.prefix(max(0, bytes.count - kept.count))), nil)
          state.garbling = garbage.isEmpty ? [0] : garbage
        case (.garbled(_, let garbage), nil):
          result = (.stop, nil)
          state.garbling = garbage.isEmpty ? [0] : garbage
        default:
          result = (.stop, nil)
        }
      } else if operation.canFail, state.failAt == number {
        state.failAt = nil
        result = (.fail, nil)
      } else if let index = state.pending.firstIndex(where: { match($0.fault) }) {
        if state.pending[index].skip > 0 {
          state.pending[index].skip -= 1
        } else {
          result = (.proceed, state.pending.remove(at: index).fault)
        }
      }
      if state.logging {
        let failed: Bool
        if case .proceed = result.0 { failed = result.1 != nil } else { failed = true }
        state.calls.append(
          Call(
            number: number, operation: operation, path: path, descriptor: descriptor,
            failed: failed, length: bytes?.count))
      }
      return result
    }
  }

  /// Records bytes written and not yet synchronized.
  func wrote(_ path: String, at offset: Int64, count: Int) {
    guard count > 0 else { return }
    state.withLock { $0.unsynced[path, default: []].append(offset..<(offset + Int64(count))) }
  }

  /// Forgets the unsynced bytes of a file (synchronized, removed) or moves them (renamed).
  func synchronized(_ path: String, movedTo destination: String? = nil) {
    state.withLock { state in
      let ranges = state.unsynced.removeValue(forKey: path)
      if let destination, let ranges { state.unsynced[destination] = ranges }
    }
  }

  /// Forgets unsynced bytes past `size` (a truncate cut them).
  func truncated(_ path: String, to size: Int64) {
    state.withLock { state in
      guard let ranges = state.unsynced[path] else { return }
      state.unsynced[path] = ranges.compactMap { range in
        range.lowerBound < size ? range.lowerBound..<min(range.upperBound, size) : nil
      }
    }
  }

  /// After a garbled crash, turns every unsynced byte (but `sparing` the range just written,
  /// which already holds its garbage) into garbage, through the real file system.
  func garbleUnsynced(sparing spared: (path: String, range: Range<Int64>)? = nil) {
    let (garbage, unsynced) = state.withLock { ($0.garbling, $0.unsynced) }
    guard let garbage else { return }
    for (path, ranges) in unsynced {
      guard let file = try? base.open(path, .readWrite) else { continue }
      defer { base.close(file) }
      for range in ranges where !(spared?.path == path && spared?.range == range) {
        let bytes = (0..<Int(range.count)).map { garbage[$0 % garbage.count] }
        try? base.write(file, bytes, at: range.lowerBound)
      }
    }
    state.withLock { $0.unsynced.removeAll() }
  }

  /// Whether an open of `path` is denied by a ``Fault/denyOpen(suffix:)``.
  func isDenied(_ path: String) -> Bool {
    state.withLock { state in
      state.pending.contains { entry in
        if case .denyOpen(let suffix) = entry.fault { path.hasSuffix(suffix) } else { false }
      }
    }
  }

  /// Records the descriptor an open returned.
  func opened(_ descriptor: FileDescriptor, _ path: String) {
    state.withLock { state in
      state.paths[descriptor.rawValue] = path
      if state.logging, let last = state.calls.indices.last {
        let call = state.calls[last]
        state.calls[last] = Call(
          number: call.number, operation: .open, path: path, descriptor: descriptor.rawValue,
          failed: false)
      }
    }
  }

  /// Forgets a descriptor being closed; `false` when it was not open (a double close).
  func closing(_ descriptor: FileDescriptor) -> Bool {
    state.withLock { state in
      guard state.paths.removeValue(forKey: descriptor.rawValue) != nil else {
        state.doubleCloses += 1
        return false
      }
      return true
    }
  }

  func injected(_ operation: Operation, _ path: String) -> FileSystemError {
    FileSystemError(
      operation: operation.rawValue, path: path, code: EIO,
      reason: "Input/output error (injected)")
  }

  func stopped(_ operation: Operation, _ path: String) -> FileSystemError {
    FileSystemError(
      operation: operation.rawValue, path: path, code: EIO,
      reason: "Input/output error (the machine stopped)")
  }

  /// The path a descriptor was opened with, and the name errors use for it (`fd N`, as the
  /// real file system's errors do, so that callers name the file themselves).
  func describe(_ file: FileDescriptor) -> (path: String, name: String) {
    (state.withLock { $0.paths[file.rawValue] } ?? "", "fd \(file.rawValue)")
  }

  /// Runs a call that either happens, fails, or meets the stopped machine.
  func simple<T>(
    _ operation: Operation, _ path: String, descriptor: Int32? = nil, name: String? = nil,
    fault matching: Fault? = nil, _ call: () throws(FileSystemError) -> T
  ) throws(FileSystemError) -> T {
    let (fate, fault) = self.fate(operation, path, descriptor: descriptor) { $0 == matching }
    switch fate {
    case .proceed where fault != nil: throw injected(operation, name ?? path)
    case .proceed: return try call()
    case .fail: throw injected(operation, name ?? path)
    case .stop, .stopAfter:
      garbleUnsynced()
      throw stopped(operation, name ?? path)
    }
  }
}
