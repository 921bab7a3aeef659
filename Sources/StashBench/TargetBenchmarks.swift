import Foundation
import LocalStore
import Stash
import StashModel

/// `stash-bench targets [--size 1k|10k|100k|1M] [--runs N] [--dir DIR] [--only GROUP] [--json]`:
/// every target of DESIGN's "Speed and scale" that this tool measures, each beside its peer in
/// the same run, A and B interleaved, medians of wall and CPU time, peak memory, the ratio.
///
/// It makes (or reuses, in DIR) a CSV of the items with locations and notes (``BenchCSV``), a
/// device folder made from it by `stash import`, and the same rows in a SQLite database (`id`
/// and `name` indexed), then runs `stash` as a person would, process start to exit, against
/// `sqlite3` (`PRAGMA synchronous=FULL`), `jq -c .` and Python's `csv` module; its sync
/// scenarios (SyncBenchmarks.swift) compare sync at the chosen size with sync at 1k, and a
/// first sync with `jq` reading the segments. A peer that is not installed is skipped with a
/// note. Nothing is flushed before a timed run.
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
  let start = Date()
  let before = loadAverage()
  do {
    try bench.prepare()
  } catch {
    printError("stash-bench targets: \(error)")
    return 1
  }
  let results = bench.run()
  let run = BenchRun(
    results: results, loadBefore: before, loadAfter: loadAverage(),
    seconds: Date().timeIntervalSince(start))
  if json {
    bench.printJSON(run)
  } else {
    bench.printTable(run)
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

/// One whole run: every scenario's figures, the load average before and after, how long it took.
struct BenchRun {
  var results: [ScenarioResult]
  var loadBefore: [Double]
  var loadAfter: [Double]
  var seconds: Double
}

/// How a row's time is judged: by wall-clock time, or by CPU time (user and system), for the
/// whole-store work that uses both cores against a peer that uses one.
enum Judge: String {
  case wall, cpu
}

/// The peak memory a row's target allows: under half the store file (one-record commands),
/// or at most the store file (whole-store commands).
enum MemoryTarget: String {
  case halfStore = "half-store"
  case store
}

/// One scenario's figures.
struct ScenarioResult {
  var name: String
  var ours: Timing?
  var peerName: String
  var peer: Timing?
  /// The ratio the target allows (ours / peer, by `judge`); `nil` for a row judged by memory
  /// only.
  var allowedRatio: Double?
  var judge = Judge.wall
  /// The peer's figure is multiplied by this before the ratio (`sync verify`: linear from 1k).
  var peerScale = 1.0
  var memory: MemoryTarget?
  var note: String?

  /// ours / (peer × scale), from the medians, by `judge` (or by `other`).
  func ratio(by judge: Judge? = nil) -> Double? {
    guard let ours, let peer else { return nil }
    let cpu = (judge ?? self.judge) == .cpu
    let peerFigure = (cpu ? peer.cpuMedian : peer.median) * peerScale
    guard peerFigure > 0 else { return nil }
    return (cpu ? ours.cpuMedian : ours.median) / peerFigure
  }
}

/// The scenarios `--only` can choose.
enum ScenarioGroup: String {
  case oneRecord = "one-record"
  case list, `import`, sync
}

/// The folder, its peers' files, and the scenarios.
struct TargetBench {
  /// Only this group's scenarios (`nil`: all).
  var only: ScenarioGroup?
  let size: Int
  let runs: Int
  let folder: String
  var home: String { folder + "/home" }
  var database: String { folder + "/peer.db" }
  var csv: String { folder + "/items.csv" }
  var marker: String { folder + "/made-from-csv" }
  /// Written once ``historyItem`` has its ``historyEdits`` edits.
  var historyMarker: String { folder + "/history-item" }
  /// The item `history ITEM` shows: edited ``historyEdits`` times when the folder is made and
  /// by no scenario after, so its history is the same in every run (the item the one-record
  /// scenarios edit gained versions at every run of the bench on a reused folder).
  var historyItem: String { name(size / 2 + 1) }
  /// How many edits ``historyItem`` is given (its history then has one entry more).
  static let historyEdits = 200
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

  /// How often a scenario that costs a whole store is run (list, export, doctor, import, a
  /// first sync, a second device's import, verify): at most 3, so that a row judged against
  /// a peer shows a median at every size (at 1M one run of each, against a machine whose CPU
  /// time for one command varies by a third from run to run, decided a row by luck).
  var wholeStoreRuns: Int { min(runs, 3) }

  /// How often `export` and `doctor` run: as ``wholeStoreRuns``, but once at 1M items. They
  /// are judged by their peak memory alone, which varies little between runs; once each keeps
  /// a 1M run within the 15 minutes (759 s with every other whole-store row run three
  /// times).
  var memoryOnlyRuns: Int { size >= 1_000_000 ? 1 : wholeStoreRuns }

  /// Makes the CSV, the folder (imported from it) and the database unless DIR already holds
  /// them; a DIR made by an older `stash-bench` (uniform items without locations) is made
  /// again.
  func prepare() throws {
    let manager = FileManager.default
    if !manager.fileExists(atPath: marker) {
      for old in [home, csv, database, folder + "/sync-1k", historyMarker] {
        try? manager.removeItem(atPath: old)
      }
    }
    if !manager.fileExists(atPath: storePath) {
      try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
      printError("making \(size) items: '\(csv)', imported into '\(home)'…")
      try makeHome(home, items: size, csv: csv)
      try? manager.removeItem(atPath: database)
      try Data("made by 'stash import' of items.csv (BenchCSV)\n".utf8)
        .write(to: URL(fileURLWithPath: marker))
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
    // The first write after a bulk load reads the whole store and writes its index; it
    // restocks the item the scenarios consume (the CSV's quantities are 0 to 39).
    let first = measure(stash, ["--home", home, "restock", name(size / 2), "1000"])
    printError(
      "first write after the import (reads the whole store, writes the index): "
        + "\(milliseconds(first.seconds)) ms")
    if !manager.fileExists(atPath: historyMarker) {
      for edit in 1...Self.historyEdits {
        let edited = measure(
          stash, ["--home", home, "edit", historyItem, "--notes", "Edit \(edit)"])
        guard edited.status == 0 else {
          throw BenchError("'stash edit \(historyItem)' failed; see '\(childErrorLog)'")
        }
      }
      try Data("'\(historyItem)' edited \(Self.historyEdits) times\n".utf8)
        .write(to: URL(fileURLWithPath: historyMarker))
    }
  }

  /// Writes `items` rows to `csv` and imports them into a new device folder `home`.
  func makeHome(_ home: String, items: Int, csv: String) throws {
    try BenchCSV.write(count: items, to: csv)
    let imported = measure(stash, ["--home", home, "import", csv])
    guard imported.status == 0 else {
      throw BenchError("'stash import \(csv)' failed; its messages are in '\(childErrorLog)'")
    }
    printError("'stash import' of \(items) rows: \(milliseconds(imported.seconds)) ms")
  }

  func name(_ number: Int) -> String { "Product \(number)" }

  func sql(_ statement: String) -> (String, [String])? {
    sqlite.map { ($0, [database, "PRAGMA synchronous=FULL; " + statement]) }
  }

  func ours(_ arguments: [String], home: String? = nil) -> (String, [String]) {
    (stash, ["--home", home ?? self.home] + arguments)
  }

  /// Whether `--only` leaves `group` in.
  func wants(_ group: ScenarioGroup) -> Bool { only == nil || only == group }
}

func formatRatio(_ ratio: Double) -> String {
  ratio == ratio.rounded() ? "\(Int(ratio))×" : String(format: "%.1f×", ratio)
}

/// The items `stash-bench encrypted-sync` makes: `Product 0`, `Product 1`, ….
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
