import Foundation
import LocalStore
import Stash
import StashBase
import StashModel

/// `stash-bench encrypted-sync [--size N] [--runs N] [--dir DIR] [--json]`: a first sync into
/// an empty shared folder and a second device's import of it, plain and encrypted, A/B
/// interleaved (the order alternates from run to run), as `stash` runs them (process start to
/// exit). Medians of wall time, CPU time (user and system) and peak memory; the encrypted
/// run's overhead beside each (target: at most 15% slower).
func encryptedSyncBenchmark(_ arguments: [String]) -> Int32 {
  var size = 100_000
  var runs = 3
  var folder = "/tmp/stash-bench-encrypted"
  var json = false
  var index = 0
  while index < arguments.count {
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch arguments[index] {
    case "--size":
      guard let value, let parsed = parseSize(value) ?? Int(value), parsed > 0 else {
        printError("stash-bench encrypted-sync: --size takes a number of items (or 1k, 100k…)")
        return 2
      }
      size = parsed
      index += 1
    case "--runs":
      guard let value, let parsed = Int(value), (1...50).contains(parsed) else {
        printError("stash-bench encrypted-sync: --runs takes a number from 1 to 50")
        return 2
      }
      runs = parsed
      index += 1
    case "--dir":
      guard let value else {
        printError("stash-bench encrypted-sync: --dir takes a folder")
        return 2
      }
      folder = value
      index += 1
    case "--json": json = true
    default:
      printError("stash-bench encrypted-sync: unknown argument '\(arguments[index])'")
      return 2
    }
    index += 1
  }
  let bench = TargetBench(size: size, runs: runs, folder: folder)
  do {
    try bench.prepareEncryptionOrigin()
  } catch {
    printError("stash-bench encrypted-sync: \(error)")
    return 1
  }
  var samples = [String: [Measurement]]()
  for run in 0..<runs {
    for encrypted in run.isMultiple(of: 2) ? [false, true] : [true, false] {
      guard let (first, second) = bench.encryptionRound(encrypted: encrypted) else { return 1 }
      let mode = encrypted ? "encrypted" : "plain"
      samples["first sync, " + mode, default: []].append(first)
      samples["second device import, " + mode, default: []].append(second)
    }
  }
  let rows = ["first sync", "second device import"].map { scenario in
    EncryptionRow(
      scenario: scenario, plain: samples[scenario + ", plain"] ?? [],
      encrypted: samples[scenario + ", encrypted"] ?? [])
  }
  if json {
    let objects = rows.map { $0.json }
    print(
      JSONWriter.string(
        .object([
          "items": .integer(Int64(size)), "runs": .integer(Int64(runs)),
          "scenarios": .array(objects),
        ])))
  } else {
    print("\(size) items, \(runs) runs each, A/B interleaved; medians")
    print("scenario               mode        wall s    cpu s   peak MiB")
    for row in rows { row.printLines() }
  }
  return 0
}

/// One scenario's plain and encrypted runs.
struct EncryptionRow {
  let scenario: String
  let plain: [Measurement]
  let encrypted: [Measurement]

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  func medians(_ runs: [Measurement]) -> (wall: Double, cpu: Double, peak: Double) {
    (
      Self.median(runs.map(\.seconds)), Self.median(runs.map(\.cpuSeconds)),
      Self.median(runs.map { Double($0.peakBytes) / 1_048_576 })
    )
  }

  func printLines() {
    let (pw, pc, pm) = medians(plain)
    let (ew, ec, em) = medians(encrypted)
    func line(_ mode: String, _ wall: Double, _ cpu: Double, _ peak: Double) -> String {
      scenario.padding(toLength: 23, withPad: " ", startingAt: 0)
        + mode.padding(toLength: 10, withPad: " ", startingAt: 0)
        + String(format: "%8.2f %8.2f %10.1f", wall, cpu, peak)
    }
    print(line("plain", pw, pc, pm))
    print(line("encrypted", ew, ec, em))
    print(
      String(
        format: "%@overhead: wall %+.1f%%, cpu %+.1f%%, peak memory %+.1f%%",
        "".padding(toLength: 23, withPad: " ", startingAt: 0), 100 * (ew / pw - 1),
        100 * (ec / pc - 1), 100 * (em / pm - 1)))
  }

  var json: JSONValue {
    let (pw, pc, pm) = medians(plain)
    let (ew, ec, em) = medians(encrypted)
    return .object([
      "scenario": .string(scenario),
      "plain": .object(["wall": .double(pw), "cpu": .double(pc), "peakMiB": .double(pm)]),
      "encrypted": .object(["wall": .double(ew), "cpu": .double(ec), "peakMiB": .double(em)]),
      "wallOverhead": .double(ew / pw - 1),
    ])
  }
}

extension TargetBench {
  /// The device folder every round copies: `size` items, never synced.
  var encryptionOrigin: String { folder + "/origin" }

  /// Makes ``encryptionOrigin`` unless it is there.
  func prepareEncryptionOrigin() throws {
    let manager = FileManager.default
    guard !manager.fileExists(atPath: encryptionOrigin + "/" + LocalStore.fileName) else {
      return
    }
    try manager.createDirectory(atPath: encryptionOrigin, withIntermediateDirectories: true)
    let device = try DeviceFolder.open(at: encryptionOrigin)
    let items = benchmarkItems(size)
    try device.folder.local!.update("the benchmark's items") { _, transaction in
      for item in items { try transaction.insert(item.record) }
    }
  }

  /// One first sync (a copy of the origin into an empty folder) and one second device's
  /// import of it, plain or encrypted; `nil` (and a message) when a step fails.
  func encryptionRound(encrypted: Bool) -> (Measurement, Measurement)? {
    let mode = encrypted ? "encrypted" : "plain"
    let first = folder + "/\(mode)-a"
    let second = folder + "/\(mode)-b"
    let cloud = folder + "/\(mode)-cloud"
    let manager = FileManager.default
    try? manager.removeItem(atPath: first)
    try? manager.removeItem(atPath: second)
    try? manager.removeItem(atPath: cloud)
    do {
      try manager.createDirectory(atPath: first, withIntermediateDirectories: true)
      try manager.createDirectory(atPath: cloud, withIntermediateDirectories: true)
      for name in [LocalStore.fileName, LocalStore.fileName + ".index"] {
        let from = encryptionOrigin + "/" + name
        if manager.fileExists(atPath: from) {
          try manager.copyItem(atPath: from, toPath: first + "/" + name)
        }
      }
    } catch {
      printError("stash-bench encrypted-sync: could not copy the origin: \(error)")
      return nil
    }
    let enable = ["--home", first, "sync", "enable", "--cloud", cloud]
    guard runStash(enable + (encrypted ? ["--encrypt"] : [])) else { return nil }
    let firstSync = measure(stash, ["--home", first, "sync"])
    let join = ["--home", second, "sync", "enable", "--cloud", cloud]
    let keyFile = first + "/" + SyncKeyFile.fileName
    guard firstSync.status == 0, runStash(join + (encrypted ? ["--key-file", keyFile] : []))
    else { return nil }
    let secondSync = measure(stash, ["--home", second, "sync"])
    guard secondSync.status == 0 else { return nil }
    return (firstSync, secondSync)
  }
}
