import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of a program with raw bytes for its arguments and environment, a working folder,
/// and a time limit after which it is killed.
///
/// The fuzz tests need what ``Subprocess`` cannot give: arguments and variables that are not
/// UTF-8 (a `String` cannot hold them), a current folder for relative paths, and a bound on
/// how long a child may take, so that a hang is reported as one instead of stalling the run.
/// Output goes to temporary files, as with ``Subprocess``, so a chatty child never blocks.
public enum BoundedProcess {
  /// How a run ended.
  public struct Outcome: Sendable, CustomStringConvertible {
    /// The exit status, or 128 plus the signal number when a signal ended the child.
    public var status: Int32
    /// The signal that ended the child, if one did (`SIGKILL` after a timeout).
    public var signal: Int32?
    /// Whether the child was killed because it ran longer than the limit.
    public var timedOut: Bool
    /// What the child wrote to standard output.
    public var output: [UInt8]
    /// What the child wrote to standard error.
    public var error: [UInt8]

    public var description: String {
      let ending = timedOut ? "killed after the time limit" : signal.map { "signal \($0)" }
      return "exit \(status)\(ending.map { " (\($0))" } ?? "")\n--- stdout\n"
        + String(decoding: output, as: UTF8.self) + "--- stderr\n"
        + String(decoding: error, as: UTF8.self)
    }
  }

  /// A failure to start the child.
  public struct LaunchError: Error, CustomStringConvertible {
    /// The `posix_spawn` error number.
    public var code: Int32
    /// The program that could not be started.
    public var executable: String

    public var description: String { "Cannot start '\(executable)': error \(code)" }
  }

  /// Runs `executable` and waits for it, killing it with `SIGKILL` after `timeout` seconds.
  ///
  /// - Parameters:
  ///   - executable: The program's path.
  ///   - arguments: The arguments after the program's name, as bytes (no NUL inside).
  ///   - environment: Exactly the child's environment, each entry `NAME=value` as bytes.
  ///   - folder: The child's current folder (default: this process's).
  ///   - scratch: A folder for the two output files (removed afterwards).
  ///   - timeout: Seconds the child may run.
  /// - Returns: How the run ended, with everything it printed.
  /// - Throws: ``LaunchError`` when the program cannot be started.
  public static func run(
    _ executable: String, arguments: [[UInt8]], environment: [[UInt8]],
    in folder: String? = nil, scratch: String, timeout: Double
  ) throws(LaunchError) -> Outcome {
    let unique = "\(getpid())-\(counter.add(1, ordering: .relaxed).oldValue)"
    let outputPath = scratch + "/bounded-\(unique).out"
    let errorPath = scratch + "/bounded-\(unique).err"
    defer {
      unlink(outputPath)
      unlink(errorPath)
    }
    let child = try spawn(
      executable, arguments: arguments, environment: environment, in: folder,
      output: outputPath, error: errorPath)
    let (status, signal, timedOut) = wait(for: child, timeout: timeout)
    return Outcome(
      status: status, signal: signal, timedOut: timedOut, output: contents(of: outputPath),
      error: contents(of: errorPath))
  }

  private static let counter = Atomic<Int>(0)

  private static func spawn(
    _ executable: String, arguments: [[UInt8]], environment: [[UInt8]], in folder: String?,
    output: String, error: String
  ) throws(LaunchError) -> pid_t {
    #if canImport(Darwin)
      var actions: posix_spawn_file_actions_t?
    #else
      var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    if let folder { addChangeOfFolder(&actions, folder) }
    let argv = ([Array(executable.utf8)] + arguments).map(duplicate) + [nil]
    let envp = environment.map(duplicate) + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var child: pid_t = 0
    let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
    guard status == 0 else { throw LaunchError(code: status, executable: executable) }
    return child
  }

  #if canImport(Glibc)
    private typealias AddChangeOfFolder =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
      -> Int32

    /// glibc declares `posix_spawn_file_actions_addchdir_np` only under `_GNU_SOURCE`, which
    /// Swift's Glibc module does not define, so it is looked up by name (glibc 2.29 and later).
    private static func addChangeOfFolder(
      _ actions: inout posix_spawn_file_actions_t, _ folder: String
    ) {
      guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else {
        preconditionFailure("posix_spawn_file_actions_addchdir_np needs glibc 2.29 or later")
      }
      _ = unsafeBitCast(symbol, to: AddChangeOfFolder.self)(&actions, folder)
    }
  #else
    private static func addChangeOfFolder(
      _ actions: inout posix_spawn_file_actions_t?, _ folder: String
    ) {
      posix_spawn_file_actions_addchdir_np(&actions, folder)
    }
  #endif

  /// Waits without reaping, so the watchdog can never signal a process id the system has
  /// already given to someone else; reaps once the watchdog is disarmed.
  private static func wait(for child: pid_t, timeout: Double) -> (Int32, Int32?, Bool) {
    let state = LockedBox((finished: false, killed: false))
    let watchdog = DispatchWorkItem {
      state.withLock { state in
        guard !state.finished else { return }
        state.killed = true
        kill(child, SIGKILL)
      }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    var info = siginfo_t()
    while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
    let killed = state.withLock { state in
      state.finished = true
      return state.killed
    }
    watchdog.cancel()
    var status: Int32 = 0
    while waitpid(child, &status, 0) == -1 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0 ? ((status >> 8) & 0xFF, nil, killed) : (128 + signal, signal, killed)
  }

  private static func duplicate(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
    let pointer = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
    for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
    pointer[bytes.count] = 0
    return pointer
  }

  private static func contents(of path: String) -> [UInt8] {
    let file = open(path, O_RDONLY)
    guard file >= 0 else { return [] }
    defer { close(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return bytes
  }
}
