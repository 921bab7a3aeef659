import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of a program: how long it took from start to exit, and its peak memory.
struct Measurement {
  /// Wall-clock seconds from spawn to exit.
  var seconds: Double
  /// The child's peak resident memory in bytes.
  var peakBytes: Int
  /// Its exit status (-1 when it could not be started or did not exit normally).
  var status: Int32
  /// CPU seconds (user and system) of the child and the processes it waited for.
  var cpuSeconds: Double = 0
}

/// Runs `path` with `arguments` (standard output to `/dev/null`, or to `output`), waits for
/// it, and measures it.
func measure(_ path: String, _ arguments: [String], output: String = "/dev/null")
  -> Measurement
{
  // What the preparation wrote (a copied store, an earlier scenario's files) is flushed
  // first: the measured program's first fsync would otherwise write it out too (ext4 commits
  // other files' dirty data with it), and its time would count as the program's.
  sync()
  // A child's peak memory as the kernel reports it includes this (large) process's memory
  // at the spawn, so it is taken from GNU time, which spawns the program from its own small
  // process, when it is installed.
  if let time = gnuTime {
    let report = NSTemporaryDirectory() + "/stash-bench-time-\(getpid())"
    var result = spawnAndWait(time, ["-f", "%M", "-o", report, path] + arguments, output: output)
    let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: report)
    let kilobytes = text.split(separator: "\n").last.flatMap { Int($0) }
    result.peakBytes = (kilobytes ?? 0) * 1024
    return result
  }
  return spawnAndWait(path, arguments, output: output)
}

/// `/usr/bin/time` when it is GNU time (it understands `-f %M`).
let gnuTime: String? = {
  let path = "/usr/bin/time"
  guard access(path, X_OK) == 0 else { return nil }
  let probe = spawnAndWait(path, ["-f", "%M", "-o", "/dev/null", "/bin/true"], output: "/dev/null")
  return probe.status == 0 ? path : nil
}()

private func spawnAndWait(_ path: String, _ arguments: [String], output: String) -> Measurement {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  let argv = ([path] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var pid = pid_t()
  let start = Date()
  let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
  guard spawned == 0 else { return Measurement(seconds: 0, peakBytes: 0, status: -1) }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
  let seconds = Date().timeIntervalSince(start)
  #if canImport(Darwin)
    let peak = Int(usage.ru_maxrss)
  #else
    let peak = Int(usage.ru_maxrss) * 1024
  #endif
  let exited = (status & 0x7f) == 0
  let cpu =
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return Measurement(
    seconds: seconds, peakBytes: peak, status: exited ? (status >> 8) & 0xff : -1,
    cpuSeconds: cpu)
}

/// The best of several runs (and the highest peak memory seen).
struct Timing {
  var best: Double
  var median: Double
  var peakBytes: Int

  init?(_ runs: [Measurement]) {
    guard !runs.isEmpty, runs.allSatisfy({ $0.status == 0 }) else { return nil }
    let times = runs.map(\.seconds).sorted()
    best = times[0]
    median = times[times.count / 2]
    peakBytes = runs.map(\.peakBytes).max() ?? 0
  }
}

/// The full path of `name` on `PATH`, if it is installed.
func findProgram(_ name: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for folder in path.split(separator: ":") {
    let candidate = "\(folder)/\(name)"
    if access(candidate, X_OK) == 0 { return candidate }
  }
  return nil
}
