import Foundation
import LocalStore
import Stash
import StashModel

/// `stash-bench targets [--size 1k|10k|100k|1M] [--runs N] [--dir DIR] [--only GROUP] [--json]`:
/// every
/// target of DESIGN's "Speed and scale" that this tool measures, each beside its peer in the
/// same run, with the ratio.
///
/// It makes (or reuses, in DIR) a device folder with the items, the same rows in a SQLite
/// database (`id` and `name` indexed) and as a CSV file, then runs `stash` as a person would,
/// process start to exit, against `sqlite3` (`PRAGMA synchronous=FULL`), `jq -c .` and Python's
/// `csv` module; its sync scenarios (SyncBenchmarks.swift) compare sync at the chosen size with
/// sync at 1k, and a first sync with `jq` reading the segments. A peer that is not installed
/// is skipped with a note.
func targetsBenchmark(_ arguments: [String]) -> Int32 {
  var size = 100_000
  var runs = 7
  var folder: String?
  var json = false
  var only: ScenarioGroup?
  var index = 0
  while index < arguments.count {
    let argument = arguments[index]
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch argument {
    case "--size":
      guard let value, let parsed = parseSize(value) else {
        printError("stash-bench targets: --size takes 1k, 10k, 100k or 1M")
        return 2
      }
      size = parsed
      index += 1
    case "--runs":
      guard let value, let parsed = Int(value), (1...50).contains(parsed) else {
        printError("stash-bench targets: --runs takes a number from 1 to 50")
        return 2
      }
      runs = parsed
      index += 1
    case "--dir":
      guard let value else {
        printError("stash-bench targets: --dir takes a folder")
        return 2
      }
      folder = value
      index += 1
    case "--only":
      guard let value, let group = ScenarioGroup(rawValue: value) else {
        printError("stash-bench targets: --only takes one-record, list, import or sync")
        return 2
      }
      only = group
      index += 1
    case "--json": json = true
    case "--help", "-h":
      print(StashBench.usage)
      return 0
    default:
      printError("stash-bench targets: unknown argument '\(argument)'; see 'stash-bench --help'")
      return 2
    }
    index += 1
  }
  var bench = TargetBench(
    size: size, runs: runs, folder: folder ?? "/tmp/stash-bench-\(sizeName(size))")
  bench.only = only
  do {
    try bench.prepare()
  } catch {
    printError("stash-bench targets: \(error)")
    return 1
  }
  let results = bench.run()
  if json {
    bench.printJSON(results)
  } else {
    bench.printTable(results)
  }
  return 0
}

/// `1k`, `10k`, `100k`, `1M` (or plain digits).
func parseSize(_ text: String) -> Int? {
  switch text.lowercased() {
  case "1k": 1000
  case "10k": 10_000
  case "100k": 100_000
  case "1m": 1_000_000
  default: Int(text).flatMap { $0 > 0 && $0 <= 10_000_000 ? $0 : nil }
  }
}

func sizeName(_ size: Int) -> String {
  switch size {
  case 1000: "1k"
  case 10_000: "10k"
  case 100_000: "100k"
  case 1_000_000: "1M"
  default: String(size)
  }
}

/// One scenario's figures.
struct ScenarioResult {
  var name: String
  var ours: Timing?
  var peerName: String
  var peer: Timing?
  /// The ratio the target allows (ours / peer), and whether peak memory must stay under
  /// half the store.
  var allowedRatio: Double
  var memoryBound: Bool
  var note: String?

  var ratio: Double? {
    guard let ours, let peer, peer.best > 0 else { return nil }
    return ours.best / peer.best
  }
}

/// The folder, its peers' files, and the scenarios.
/// The scenarios `--only` can choose.
enum ScenarioGroup: String {
  case oneRecord = "one-record"
  case list, `import`, sync
}

struct TargetBench {
  /// Only this group's scenarios (`nil`: all).
  var only: ScenarioGroup?
  let size: Int
  let runs: Int
  let folder: String
  var home: String { folder + "/home" }
  var database: String { folder + "/peer.db" }
  var csv: String { folder + "/items.csv" }
  var storePath: String { home + "/" + LocalStore.fileName }
  var stash: String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("stash").path
  }
  let sqlite = findProgram("sqlite3")
  let jq = findProgram("jq")
  let python = findProgram("python3")

  init(size: Int, runs: Int, folder: String) {
    self.size = size
    self.runs = runs
    self.folder = folder
  }

  /// Makes the folder, the CSV and the database unless DIR already holds them.
  func prepare() throws {
    let manager = FileManager.default
    if !manager.fileExists(atPath: storePath) {
      try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
      printError("making \(size) items in '\(home)'…")
      let device = try DeviceFolder.open(at: home)
      let items = benchmarkItems(size)
      try device.folder.local!.update("the benchmark's items") { _, transaction in
        for item in items { try transaction.insert(item.record) }
      }
      try? manager.removeItem(atPath: csv)
      try? manager.removeItem(atPath: database)
    }
    if !manager.fileExists(atPath: csv) {
      let export = measure(stash, ["--home", home, "export", "--format", "csv"], output: csv)
      guard export.status == 0 else { throw BenchError("'stash export' failed") }
    }
    if let sqlite, !manager.fileExists(atPath: database) {
      let made = measure(
        sqlite,
        [
          database, "-cmd", ".mode csv", ".import \(csv) items",
          "CREATE INDEX items_id ON items(id); CREATE INDEX items_name ON items(name);",
        ])
      guard made.status == 0 else { throw BenchError("sqlite3 could not import '\(csv)'") }
    }
    // The first write after a bulk load reads the whole store and writes its index.
    let first = measure(stash, ["--home", home, "consume", name(size / 2)])
    printError(
      "first write after the bulk load (reads the whole store, writes the index): "
        + "\(milliseconds(first.seconds)) ms")
  }

  func name(_ number: Int) -> String { "Product \(number)" }

  /// Runs `make(run)` `runs` times and times each.
  func timed(_ make: (Int) -> (String, [String])?) -> Timing? {
    var results = [Measurement]()
    for run in 0..<runs {
      guard let (path, arguments) = make(run) else { return nil }
      results.append(measure(path, arguments))
    }
    return Timing(results)
  }

  func sql(_ statement: String) -> (String, [String])? {
    sqlite.map { ($0, [database, "PRAGMA synchronous=FULL; " + statement]) }
  }

  func ours(_ arguments: [String]) -> (String, [String]) {
    (stash, ["--home", home] + arguments)
  }

  /// Every scenario, in the order of DESIGN's targets.
  func run() -> [ScenarioResult] {
    let target = name(size / 2)
    let quoted = "'\(target)'"
    var results = [ScenarioResult]()
    func oneRecord(
      _ name: String, ours make: @escaping (Int) -> [String],
      peer statement: @escaping (Int) -> String
    ) {
      guard wants(.oneRecord) else { return }
      results.append(
        ScenarioResult(
          name: name, ours: timed { run in ours(make(run)) }, peerName: "sqlite3",
          peer: timed { run in sql(statement(run)) }, allowedRatio: 5, memoryBound: true,
          note: sqlite == nil ? "sqlite3 is not installed" : nil))
    }
    oneRecord(
      "show", ours: { _ in ["show", target, "--json"] },
      peer: { _ in "SELECT * FROM items WHERE name = \(quoted);" })
    oneRecord(
      "consume", ours: { _ in ["consume", target] },
      peer: { _ in "UPDATE items SET quantity = quantity - 1 WHERE name = \(quoted);" })
    oneRecord(
      "restock", ours: { _ in ["restock", target, "2"] },
      peer: { _ in "UPDATE items SET quantity = quantity + 2 WHERE name = \(quoted);" })
    oneRecord(
      "edit", ours: { run in ["edit", target, "--notes", "Run \(run)"] },
      peer: { run in "UPDATE items SET notes = 'Run \(run)' WHERE name = \(quoted);" })
    // Each run deletes another item, and so does each invocation on a reused folder.
    let first = 1 + Int(Date().timeIntervalSince1970 / 10) % max(1, size / 2 - runs - 1)
    oneRecord(
      "delete", ours: { run in ["delete", name(first + run)] },
      peer: { run in "DELETE FROM items WHERE name = '\(name(first + run))';" })
    oneRecord(
      "add", ours: { run in ["add", "New \(run)", "--quantity", "3"] },
      peer: { run in
        "INSERT INTO items(id, name, quantity) VALUES ('new-\(run)', 'New \(run)', 3);"
      })
    let jqPeer = { (_: Int) in jq.map { ($0, ["-c", ".", storePath]) } }
    for (label, arguments) in [("list --json", ["list", "--json"]), ("list", ["list"])]
    where wants(.list) {
      results.append(
        ScenarioResult(
          name: label, ours: timed { _ in ours(arguments) }, peerName: "jq -c .",
          peer: timed(jqPeer), allowedRatio: 1, memoryBound: false,
          note: jq == nil ? "jq is not installed" : nil))
    }
    if wants(.import) { results.append(importScenario()) }
    if wants(.sync) { results += syncScenarios() }
    return results
  }

  /// Whether `--only` leaves `group` in.
  func wants(_ group: ScenarioGroup) -> Bool { only == nil || only == group }

  /// `stash import` of the CSV into a new folder against Python's csv module reading it and
  /// writing JSON lines.
  func importScenario() -> ScenarioResult {
    let fresh = folder + "/import-home"
    let oursTiming = Timing(
      (0..<min(runs, 3)).map { _ in
        try? FileManager.default.removeItem(atPath: fresh)
        return measure(stash, ["--home", fresh, "import", csv])
      })
    let script =
      "import csv,json,sys\nout=open(sys.argv[2],'w')\n"
      + "for row in csv.DictReader(open(sys.argv[1],newline='')): out.write(json.dumps(row)+'\\n')"
    let peer = python.flatMap { python in
      Timing(
        (0..<min(runs, 3)).map { _ in
          measure(python, ["-c", script, csv, folder + "/python.jsonl"])
        })
    }
    return ScenarioResult(
      name: "import (CSV)", ours: oursTiming, peerName: "python3 csv", peer: peer,
      allowedRatio: 2, memoryBound: false,
      note: python == nil ? "python3 is not installed" : nil)
  }

  func printTable(_ results: [ScenarioResult]) {
    let storeBytes = fileSize(storePath)
    print(
      "stash-bench targets: \(size) items, default.store \(megabytes(storeBytes)) MB, "
        + "best of \(runs) runs (process start to exit)")
    print("")
    print("| scenario | ours | peer | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for result in results {
      let ours = result.ours.map { "\(milliseconds($0.best)) ms, \(megabytes($0.peakBytes)) MB" }
      let peer = result.peer.map {
        "\(result.peerName) \(milliseconds($0.best)) ms, \(megabytes($0.peakBytes)) MB"
      }
      let ratio = result.ratio.map { String(format: "%.1f×", $0) } ?? "-"
      var target = "≤ \(formatRatio(result.allowedRatio))"
      if result.memoryBound { target += ", < 0.5× store" }
      print(
        "| \(result.name) | \(ours ?? "failed") | \(peer ?? result.note ?? "failed") | \(ratio) "
          + "| \(target) | \(met(result, storeBytes: storeBytes)) |")
    }
    guard wants(.sync) else { return }
    print("")
    print(
      "Sync scenarios: 'sync (one edit)' consumes one item (untimed) before each timed sync; "
        + "a first sync and a second device's import run at most 3 times (once at 1M). Not "
        + "measured here: doctor's progress.")
  }

  func met(_ result: ScenarioResult, storeBytes: Int) -> String {
    guard let ratio = result.ratio, let ours = result.ours else { return "-" }
    let time = ratio <= result.allowedRatio
    let memory = !result.memoryBound || Double(ours.peakBytes) < 0.5 * Double(storeBytes)
    switch (time, memory) {
    case (true, true): return "yes"
    case (true, false): return "time only"
    case (false, true): return result.memoryBound ? "memory only" : "no"
    case (false, false): return "no"
    }
  }

  func printJSON(_ results: [ScenarioResult]) {
    let storeBytes = fileSize(storePath)
    func timing(_ timing: Timing?) -> Any {
      guard let timing else { return NSNull() }
      return [
        "bestMs": timing.best * 1000, "medianMs": timing.median * 1000,
        "peakBytes": timing.peakBytes,
      ]
    }
    let scenarios: [[String: Any]] = results.map { result in
      [
        "name": result.name, "ours": timing(result.ours), "peer": result.peerName,
        "peerTiming": timing(result.peer), "ratio": result.ratio ?? NSNull(),
        "allowedRatio": result.allowedRatio, "memoryBound": result.memoryBound,
        "met": met(result, storeBytes: storeBytes), "note": result.note ?? NSNull(),
      ]
    }
    let object: [String: Any] = [
      "items": size, "storeBytes": storeBytes, "runs": runs, "scenarios": scenarios,
    ]
    if let data = try? JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    {
      print(String(decoding: data, as: UTF8.self))
    }
  }
}

func formatRatio(_ ratio: Double) -> String {
  ratio == ratio.rounded() ? "\(Int(ratio))×" : String(format: "%.1f×", ratio)
}

/// The items `stash-bench store` and `targets` make: `Product 0`, `Product 1`, ….
func benchmarkItems(_ count: Int) -> [Item] {
  var random = SystemRandomNumberGenerator()
  let time = Timestamp.now()
  return (0..<count).map { index in
    Item(
      id: .random(using: &random), name: "Product \(index)", brand: "Brand \(index % 97)",
      quantity: Int64(100 + index % 50), unit: "tube", notes: "Shelf \(index % 13)",
      lowStockThreshold: 2, barcode: String(4_064_666_000_000 + index), createdAt: time)
  }
}

struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
