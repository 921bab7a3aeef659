import Foundation
import Synchronization

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
///
/// Nothing is flushed first: the program meets the page cache and the dirty pages other
/// processes (and the benchmark's preparation) left, as a person's command does.
func measure(_ path: String, _ arguments: [String], output: String = "/dev/null")
  -> Measurement
{
  // A child's peak memory as the kernel reports it includes this (large) process's memory
  // at the spawn, so it is taken from GNU time, which spawns the program from its own small
  // process, when it is installed.
  let result = measureOnce(path, arguments, output: output)
  if result.status != 0 { childFailures.add(1, ordering: .relaxed) }
  return result
}

private func measureOnce(_ path: String, _ arguments: [String], output: String) -> Measurement {
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

/// Where the measured programs' standard error goes (appended; not the terminal, where a
/// copied folder's notice for every run would bury the table). Removed at exit unless a
/// program exited other than 0 (``childFailures``).
let childErrorLog = NSTemporaryDirectory() + "/stash-bench-\(getpid()).stderr"

/// How many programs run by ``measure(_:_:output:)`` exited other than 0 in this process.
let childFailures = Atomic<Int>(0)

/// Removes ``childErrorLog`` when every program exited 0: its notices are not worth keeping.
func removeChildErrorLogUnlessNeeded() {
  if childFailures.load(ordering: .relaxed) == 0 {
    try? FileManager.default.removeItem(atPath: childErrorLog)
  }
}

/// Says on stderr that `command` failed and where its messages are.
func noteChildFailure(_ command: String) {
  printError("stash-bench: \(command); its messages are in '\(childErrorLog)'")
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
  posix_spawn_file_actions_addopen(
    &actions, 2, childErrorLog, O_WRONLY | O_CREAT | O_APPEND, 0o600)
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

/// Several runs of one command: medians of wall and CPU time (best and worst beside them),
/// and peak memory (the highest and the median).
struct Timing {
  var best: Double
  var worst: Double
  var median: Double
  var cpuBest: Double
  var cpuMedian: Double
  var peakBytes: Int
  var peakMedianBytes: Int
  var runs: Int

  init?(_ runs: [Measurement]) {
    guard !runs.isEmpty, runs.allSatisfy({ $0.status == 0 }) else { return nil }
    func middle<T: Comparable>(_ values: [T]) -> T { values.sorted()[(values.count - 1) / 2] }
    best = runs.map(\.seconds).min() ?? 0
    worst = runs.map(\.seconds).max() ?? 0
    median = middle(runs.map(\.seconds))
    cpuBest = runs.map(\.cpuSeconds).min() ?? 0
    cpuMedian = middle(runs.map(\.cpuSeconds))
    peakBytes = runs.map(\.peakBytes).max() ?? 0
    peakMedianBytes = middle(runs.map(\.peakBytes))
    self.runs = runs.count
  }
}

/// One side of an interleaved comparison: an untimed step before each run (`nil`: nothing
/// to do; `false`: it failed), then the timed command (`nil`: not available).
struct Side {
  var prepare: (Int) -> Bool = { _ in true }
  var command: (Int) -> (String, [String])?
}

/// Runs A and B `runs` times alternately (A1 B1 A2 B2 …), each timed run after its side's
/// untimed preparation; a side whose preparation or command fails stops there.
func interleaved(_ runs: Int, _ a: Side, _ b: Side?) -> (Timing?, Timing?) {
  var first = [Measurement]()
  var second = [Measurement]()
  var aFailed = false
  var bFailed = b == nil
  for run in 0..<runs where !(aFailed && bFailed) {
    for (side, index) in [(a, 0), b.map { ($0, 1) }].compactMap({ $0 }) {
      guard index == 0 ? !aFailed : !bFailed else { continue }
      var result: Measurement?
      if side.prepare(run), let (path, arguments) = side.command(run) {
        result = measure(path, arguments)
        if let status = result?.status, status != 0 {
          noteChildFailure("'\(([path] + arguments).joined(separator: " "))' exited \(status)")
        }
      }
      guard let result, result.status == 0 else {
        if index == 0 { aFailed = true } else { bFailed = true }
        continue
      }
      if index == 0 { first.append(result) } else { second.append(result) }
    }
  }
  return (aFailed ? nil : Timing(first), bFailed ? nil : Timing(second))
}

/// The 1-, 5- and 15-minute load averages (`getloadavg`: /proc/loadavg on Linux).
func loadAverage() -> [Double] {
  var values = [Double](repeating: 0, count: 3)
  let count = getloadavg(&values, 3)
  return count == 3 ? values : []
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
