import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `stash-bench live [--size N] [--interval S] [--runs N] [--idle S] [--dir DIR]`: two device
/// folders of N items sharing one folder, `stash sync --watch` running on both; each run
/// consumes on one device (A, then B, in turn) and times from `stash consume` returning to
/// `stash show` on the other device showing the new quantity. Then both watchers sit idle for
/// `--idle` seconds and the CPU time they used is reported (Linux: from `/proc`), and both are
/// stopped with SIGTERM (each must exit 0).
func liveBenchmark(_ arguments: [String]) -> Int32 {
  var size = 1000
  var interval = 1.0
  var runs = 5
  var idle = 10.0
  var dir: String?
  var rest = arguments[...]
  while let flag = rest.popFirst() {
    let value = rest.popFirst()
    switch (flag, value) {
    case ("--size", let text?): size = parseSize(text) ?? Int(text) ?? 0
    case ("--interval", let text?): interval = Double(text) ?? 0
    case ("--runs", let text?): runs = Int(text) ?? 0
    case ("--idle", let text?): idle = Double(text) ?? -1
    case ("--dir", let text?): dir = text
    default:
      printError(
        "usage: stash-bench live [--size N] [--interval S] [--runs N] [--idle S] [--dir DIR]")
      return 2
    }
  }
  guard size > 0, interval >= 0.05, runs > 0, idle >= 0 else {
    printError("stash-bench live: --size, --interval (>= 0.05), --runs and --idle take numbers")
    return 2
  }
  let root = dir ?? NSTemporaryDirectory() + "/stash-bench-live-\(size)"
  let bench = LiveBench(root: root, size: size, interval: interval)
  guard bench.prepare() else { return 1 }
  return bench.measure(runs: runs, idle: idle) ? 0 : 1
}

/// The two devices and their watchers.
struct LiveBench {
  let root: String
  let size: Int
  let interval: Double
  var homes: [String] { [root + "/a", root + "/b"] }
  var cloud: String { root + "/cloud" }
  /// The item consumed in turn on each device.
  var item: String { "Product \(size / 2)" }
  let stash = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("stash").path

  /// A with N items, both devices syncing through `cloud`, both holding the items.
  func prepare() -> Bool {
    let manager = FileManager.default
    try? manager.removeItem(atPath: root)
    try? manager.createDirectory(atPath: cloud, withIntermediateDirectories: true)
    let start = Date()
    guard makeStoreQuietly(size, homes[0]) else { return false }
    for home in homes {
      guard run(["--home", home, "sync", "enable", "--cloud", cloud]) else { return false }
    }
    for home in homes where !run(["--home", home, "sync"]) { return false }
    printError("prepared two devices of \(size) items in \(seconds(since: start)) s")
    return true
  }

  func measure(runs: Int, idle: Double) -> Bool {
    let watchers = homes.map { home -> Process in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: stash)
      process.arguments = ["--home", home, "sync", "--watch", "--interval", String(interval)]
      // What each watcher printed stays beside its folder, for a look after the run.
      _ = FileManager.default.createFile(atPath: home + ".watch.log", contents: nil)
      process.standardOutput = FileHandle(forWritingAtPath: home + ".watch.log")
      try? process.run()
      return process
    }
    defer {
      for watcher in watchers where watcher.isRunning { watcher.terminate() }
    }
    Thread.sleep(forTimeInterval: interval * 2 + 1)
    var latencies = [Double]()
    // The watchers' first exchanges may hold the folders a while (a full sync at 100k).
    let waiting = Date()
    var first = quantity(on: homes[0])
    while first == nil {
      guard Date().timeIntervalSince(waiting) < 120 else {
        printError("stash-bench live: cannot read '\(item)' on the first device")
        return false
      }
      Thread.sleep(forTimeInterval: 0.1)
      first = quantity(on: homes[0])
    }
    var expected = first ?? 0
    for index in 0..<runs {
      let (from, to) = index % 2 == 0 ? (homes[0], homes[1]) : (homes[1], homes[0])
      guard run(["--home", from, "consume", item]) else { return false }
      expected -= 1
      let start = Date()
      while quantity(on: to) != expected {
        guard Date().timeIntervalSince(start) < 60 else {
          printError("stash-bench live: the consume did not arrive within 60 s")
          return false
        }
        Thread.sleep(forTimeInterval: 0.01)
      }
      latencies.append(Date().timeIntervalSince(start))
      Thread.sleep(forTimeInterval: interval + 0.5)  // both watchers back to idle
    }
    print(
      "\(sizeName(size)) items, --interval \(interval) s, \(runs) consumes: consume returned → "
        + "other device shows it: best \(milliseconds(latencies.min()!)) ms, median "
        + "\(milliseconds(median(latencies))) ms, worst \(milliseconds(latencies.max()!)) ms")
    if idle > 0, let before = cpuSeconds(watchers) {
      Thread.sleep(forTimeInterval: idle)
      if let after = cpuSeconds(watchers) {
        let perSecond = (after - before) / Double(watchers.count) / idle
        print(
          "idle: \(milliseconds(perSecond)) ms CPU per second per watcher "
            + "(\(milliseconds(perSecond * interval)) ms per check)")
      }
    }
    var clean = true
    for watcher in watchers {
      watcher.terminate()
      watcher.waitUntilExit()
      if watcher.terminationStatus != 0 {
        printError("stash-bench live: a watcher exited with \(watcher.terminationStatus)")
        clean = false
      }
    }
    return clean
  }

  /// The consumed item's quantity on the device at `home`, read with `stash show`.
  func quantity(on home: String) -> Int64? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: stash)
    process.arguments = ["--home", home, "show", item, "--json"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    return (object?["quantity"] as? NSNumber)?.int64Value
  }

  func run(_ arguments: [String]) -> Bool {
    let status = runProcess(stash, arguments)
    if status != 0 {
      printError("stash-bench live: 'stash \(arguments.joined(separator: " "))' exited \(status)")
    }
    return status == 0
  }

  /// `stash-bench store N DIR` in a child (its item id on standard output is not needed).
  func makeStoreQuietly(_ count: Int, _ home: String) -> Bool {
    let status = runProcess(CommandLine.arguments[0], ["store", String(count), home])
    if status != 0 { printError("stash-bench live: making the store failed") }
    return status == 0
  }

  /// The user and system CPU seconds the processes used so far (Linux only).
  func cpuSeconds(_ processes: [Process]) -> Double? {
    #if os(Linux)
      var total = 0.0
      let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
      for process in processes {
        guard
          let text = try? String(
            contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based over the line).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12])
        else { return nil }
        total += (user + system) / ticks
      }
      return total
    #else
      return nil
    #endif
  }
}
