public import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process started with `posix_spawn`, its output going to files.
///
/// The tests run the built `stash` binary many times, from several tests at once. They do not
/// use Foundation's `Process`: on Linux its `run()` reads past the end of a buffer while
/// listing `/proc/self/fd` and crashes now and then (swiftlang/swift-corelibs-foundation#5472,
/// fixed after the Swift 6.3.1 toolchain this project builds with). Output goes to temporary
/// files rather than pipes, so a chatty child can never block on a full pipe.
public final class Subprocess {
  private let pid: pid_t
  private let outputPath: String
  private let errorPath: String
  private let ownsErrorFile: Bool

  /// Starts `executable` with `arguments` (not including the program name) and exactly
  /// `environment`.
  ///
  /// - Throws: An `NSError` with the `posix_spawn` error when the program cannot be started.
  /// - Parameter standardError: A file (a terminal's device, say) to open for standard error
  ///   instead of a temporary file; ``wait()`` then returns no error output.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String],
    standardError: String? = nil
  ) throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stash-subprocess-\(UUID().uuidString)")
    outputPath = scratch.path + ".out"
    errorPath = standardError ?? scratch.path + ".err"
    ownsErrorFile = standardError == nil
    #if canImport(Darwin)
      var actions: posix_spawn_file_actions_t?
    #else
      var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var child: pid_t = 0
    // The child starts with no signal blocked and every signal's default action. Otherwise it
    // inherits the spawning thread's mask, and test-runner threads block nearly every signal
    // (SIGCHLD among them): a shell child then never reaps its own children, so its `wait`
    // hangs, and `timeout`'s SIGTERM never arrives.
    #if canImport(Darwin)
      var attributes: posix_spawnattr_t?
    #else
      var attributes = posix_spawnattr_t()
    #endif
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    guard status == 0 else {
      throw NSError(
        domain: NSPOSIXErrorDomain, code: Int(status),
        userInfo: [NSLocalizedDescriptionKey: "cannot start '\(executable)'"])
    }
    pid = child
  }

  /// Waits for the child to exit.
  ///
  /// - Returns: Its exit status (128 + the signal number if a signal ended it), and what it
  ///   wrote to standard output and standard error.
  public func wait() -> (status: Int32, output: Data, error: Data) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exited = status & 0x7F == 0
    let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    let output = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
    let error =
      ownsErrorFile ? (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data() : Data()
    unlink(outputPath)
    if ownsErrorFile { unlink(errorPath) }
    return (code, output, error)
  }
}
