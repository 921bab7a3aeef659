import JSONLines
public import StashFiles
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The tests' one fake file system: the real one, run to a script of per-call rules.
///
/// The rules: fail a call with an errno or tear a write (``inject(_:afterSkipping:)``,
/// ``failCall(_:)``, ``failLinks(with:)``), stop the machine or kill the process at a call
/// (``crash(atCall:_:)``), run a hook just before a file is published or a folder listed
/// (``beforePublish(_:)``, ``beforeListing(_:)``), record every call under a folder for the
/// states a power cut could leave (``init(recordingPowerCutsUnder:)``), and report files under
/// the device and inode they had when recorded (``PowerCutState/write(to:identities:)``). The
/// seam tests use it to prove that a failed save leaves nothing half-done, that a crash or a
/// power cut leaves every file at a commit, and that a second writer at the worst moment
/// replaces nothing.
///
/// ```swift
/// let files = ScriptedFileSystem()
/// files.inject(.write(keepingBytes: 10))   // the next write stores 10 bytes, then fails
/// files.failCall(17)                       // the 17th call from now fails with EIO
/// files.crash(atCall: 40, .garbled(keepingBytes: 3, garbage: bytes))  // then the power goes
/// files.beforePublish { destination in ... }  // a second writer, just before each publish
/// ```
/// Every call is logged (``calls``) with its descriptor and path, and a descriptor closed
/// twice is counted (``doubleCloses``): a second close of a number may close a file another
/// thread has opened since.
///
/// `close` and `unlock` cannot fail (the seam's contract: the data was synchronized before,
/// and POSIX says a failed close must not be retried), so they are logged but never failed.
public final class ScriptedFileSystem: FileSystem {
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
    /// The process sends itself SIGKILL before the call, or, for a write and a
    /// `keepingBytes` that is not `nil`, after storing its first `keepingBytes` bytes (the
    /// crash tests' child process).
    case kill(keepingBytes: Int?)
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

  struct State {
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
    /// Runs with the destination before every `link` and `rename`.
    var beforePublish: (@Sendable (_ destination: String) -> Void)?
    /// Runs with the folder before every listing.
    var beforeListing: (@Sendable (_ folder: String) -> Void)?
    /// The errno every `link` fails with, if any.
    var linkFailure: Int32?
  }

  let base = POSIXFileSystem()
  let state = Mutex(State())
  /// The power-cut record of the calls under a folder, if one is kept.
  let recorder: PowerCutRecorder?
  /// Device and inode pairs reported as others (see ``PowerCutState/write(to:identities:)``).
  let identities: [IdentityKey: FileIdentity]

  /// A file system that behaves like the real one until told otherwise.
  public init() {
    recorder = nil
    identities = [:]
  }

  /// A file system that also records every call under `root` that a power cut could undo
  /// (each write with its bytes, truncate, fsync, create, rename, link, unlink, folder
  /// creation and folder fsync, in order), whose present files and folders count as durable.
  ///
  /// A ``PowerCutReplay`` of the record then builds the states a power cut at any moment could
  /// leave (SQLite's crash-test VFS and ALICE, Pillai et al., OSDI 2014, do the same): writes
  /// no fsync made durable dropped or kept per 4 KiB page in any order, and names no folder
  /// fsync made durable undone.
  ///
  /// ```swift
  /// let files = try ScriptedFileSystem(recordingPowerCutsUnder: root.path)
  /// let start = files.eventCount
  /// try workload(files)                                  // through the seam
  /// var replay = files.replay()
  /// replay.advance(to: start + 3)                        // just after the workload's third call
  /// let state = replay.sample(using: &random)            // one state the power cut could leave
  /// ```
  /// Calls on paths outside the root go through unrecorded. A file under the root that the
  /// record never saw created (written behind the seam's back) is listed in ``problems``.
  ///
  /// - Throws: ``FileSystemError`` when a file under `root` cannot be read.
  public init(recordingPowerCutsUnder root: String) throws(FileSystemError) {
    recorder = try PowerCutRecorder(root: root, base: base)
    identities = [:]
  }

  /// A file system that reports the files whose device and inode are keys of `identities`
  /// under the values instead.
  init(reporting identities: [IdentityKey: FileIdentity]) {
    recorder = nil
    self.identities = identities
  }

  /// A file's device and inode.
  struct IdentityKey: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ identity: FileIdentity) {
      device = identity.device
      inode = identity.inode
    }
  }

  /// Runs `hook` with the destination before every `link` and `rename`: a second writer at
  /// the worst moment (a file appears at the name being published).
  public func beforePublish(_ hook: @escaping @Sendable (_ destination: String) -> Void) {
    state.withLock { $0.beforePublish = hook }
  }

  /// Runs `hook` with the folder before every listing (to watch which lock is held while the
  /// transport reads and writes).
  public func beforeListing(_ hook: @escaping @Sendable (_ folder: String) -> Void) {
    state.withLock { $0.beforeListing = hook }
  }

  /// Makes every `link` fail with `code`: `EPERM` is what FAT and many shares answer.
  public func failLinks(with code: Int32) { state.withLock { $0.linkFailure = code } }

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
}
