import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import Stash
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `stash-bench store N DIR [--synced]`: a device folder with N items (and, with `--synced`, a
/// mirror and checkpoints that agree with them), for the other store benchmarks.
func makeStoreBenchmark(_ arguments: [String]) -> Int32 {
  guard arguments.count >= 2, let count = Int(arguments[0]), count > 0 else {
    printError("usage: stash-bench store N DIR [--synced]")
    return 2
  }
  let home = arguments[1]
  let synced = arguments.contains("--synced")
  do {
    let start = Date()
    let device = try DeviceFolder.open(at: home)
    var random = SystemRandomNumberGenerator()
    let time = Timestamp.now()
    var items = [Item]()
    for index in 0..<count {
      let quantity = Int64(100 + index % 50)
      let barcode = String(4_064_666_000_000 + index)
      items.append(
        Item(
          id: .random(using: &random), name: "Product \(index)", brand: "Brand \(index % 97)",
          quantity: quantity, unit: "tube", notes: "Shelf \(index % 13)", lowStockThreshold: 2,
          barcode: barcode, createdAt: time))
    }
    let local = device.folder.local!
    try local.update("the benchmark's items") { _, transaction in
      for item in items { try transaction.insert(item.record) }
    }
    if synced {
      try device.folder.saveEntitlement(.yearlySubscription)
      let reopened = try DeviceFolder.open(at: home)
      let mirror = reopened.folder.mirror.store!
      try mirror.update { _, transaction in
        for item in items {
          transaction.merge(
            MirrorVersion(
              snapshot: .record(item.record), parents: [], generation: 1,
              author: local.deviceID, authoredAt: time))
        }
      }
      try Reconciler(local: reopened.folder.local!, mirror: mirror, clock: { time }).reconcile()
    }
    let size = fileSize(home + "/" + LocalStore.fileName)
    printError(
      "made \(count) items in '\(home)' in \(seconds(since: start)) s; default.store "
        + "\(megabytes(size)) MB")
    print(items[count / 2].id.rawValue)
    return 0
  } catch {
    printError("stash-bench store: \(error)")
    return 1
  }
}

/// `stash-bench open DIR`: how long opening the device folder takes (best and median of 5,
/// in this process), this process's peak memory against the store's size, and Python's `json`
/// reading the same file line by line, for comparison.
func openBenchmark(_ arguments: [String]) -> Int32 {
  guard let home = arguments.first else {
    printError("usage: stash-bench open DIR")
    return 2
  }
  var times = [Double]()
  do {
    for _ in 0..<5 {
      let start = Date()
      let device = try DeviceFolder.open(at: home, options: .init(createIfMissing: false))
      times.append(Date().timeIntervalSince(start))
      precondition(device.folder.local != nil, "no store in '\(home)'")
    }
  } catch {
    printError("stash-bench open: \(error)")
    return 1
  }
  let path = home + "/" + LocalStore.fileName
  let size = fileSize(path)
  print(
    "open \(home): best \(milliseconds(times.min()!)) ms, median \(milliseconds(median(times))) ms")
  print(
    "  store \(megabytes(size)) MB; peak memory \(megabytes(peakMemoryBytes())) MB "
      + String(format: "(%.2f× the store)", Double(peakMemoryBytes()) / Double(max(size, 1))))
  if let python = pythonJSONSeconds(path) {
    print("  peer: python3 json.loads of every line of the same file: \(milliseconds(python)) ms")
  }
  return 0
}

/// `stash-bench consume DIR ID [RUNS]`: `stash consume` end to end, process start to exit,
/// run by the `stash` binary next to this one; restocks afterwards.
func consumeBenchmark(_ arguments: [String]) -> Int32 {
  guard arguments.count >= 2 else {
    printError("usage: stash-bench consume DIR ITEM [RUNS]")
    return 2
  }
  let (home, item) = (arguments[0], arguments[1])
  let runs = arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10
  let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("stash").path
  var times = [Double]()
  for _ in 0..<runs {
    let start = Date()
    let status = runProcess(binary, ["--home", home, "consume", item])
    times.append(Date().timeIntervalSince(start))
    guard status == 0 else {
      printError("stash consume exited with \(status)")
      return 1
    }
  }
  _ = runProcess(binary, ["--home", home, "restock", item, String(runs)])
  print(
    "stash consume (\(runs) runs): best \(milliseconds(times.min()!)) ms, median "
      + "\(milliseconds(median(times))) ms")
  return 0
}

/// `stash-bench reconcile DIR`: a full pass with nothing to do (best of 5), then one edit and
/// a pass over that record, then a full pass after one edit.
func reconcileBenchmark(_ arguments: [String]) -> Int32 {
  guard let home = arguments.first else {
    printError("usage: stash-bench reconcile DIR (made with 'stash-bench store N DIR --synced')")
    return 2
  }
  do {
    let device = try DeviceFolder.open(at: home, options: .init(createIfMissing: false))
    guard let local = device.folder.local, let mirror = device.folder.mirror.store else {
      printError("'\(home)' has no mirror; make it with --synced")
      return 1
    }
    let reconciler = try Reconciler(local: local, mirror: mirror, clock: { Timestamp.now() })
    try reconciler.reconcile()  // settle what earlier benchmarks changed, untimed
    var idle = [Double]()
    for _ in 0..<5 {
      let start = Date()
      let report = try reconciler.reconcile()
      idle.append(Date().timeIntervalSince(start))
      precondition(!report.changedAnything, "the folder was not in agreement")
    }
    let item = device.items()[device.items().count / 2]
    try device.consume(item.id.rawValue)
    var start = Date()
    try reconciler.reconcile(keys: [item.record.key])
    let onePass = Date().timeIntervalSince(start)
    try device.restock(item.id.rawValue, count: 1)
    start = Date()
    try reconciler.reconcile()
    let fullAfterEdit = Date().timeIntervalSince(start)
    print(
      "reconcile \(local.content.rows.count) records with nothing to do: best "
        + "\(milliseconds(idle.min()!)) ms, median \(milliseconds(median(idle))) ms")
    print("  a pass over the one edited record: \(milliseconds(onePass)) ms")
    print("  a full pass after one edit: \(milliseconds(fullAfterEdit)) ms")
    return 0
  } catch {
    printError("stash-bench reconcile: \(error)")
    return 1
  }
}

// MARK: Helpers

func runProcess(_ path: String, _ arguments: [String]) -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  do { try process.run() } catch { return -1 }
  process.waitUntilExit()
  return process.terminationStatus
}

func pythonJSONSeconds(_ path: String) -> Double? {
  let script =
    "import json,sys,time\nt=time.perf_counter()\n"
    + "[json.loads(l) for l in open(sys.argv[1],'rb')]\nprint(time.perf_counter()-t)"
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", "-c", script, path]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  do { try process.run() } catch { return nil }
  process.waitUntilExit()
  let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  return process.terminationStatus == 0
    ? Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
}

func peakMemoryBytes() -> Int {
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  #if canImport(Darwin)
    return Int(usage.ru_maxrss)  // bytes on Apple systems
  #else
    return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
  #endif
}

func fileSize(_ path: String) -> Int {
  (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func milliseconds(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
func seconds(since start: Date) -> String {
  String(format: "%.1f", Date().timeIntervalSince(start))
}
func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }
