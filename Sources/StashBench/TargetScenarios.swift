import Foundation

/// The scenarios of `stash-bench targets` outside sync: one-record commands against sqlite3,
/// whole-store reads against `jq -c .` (and by their memory), a CSV import against Python.
extension TargetBench {
  /// Every scenario, in the order of DESIGN's targets.
  func run() -> [ScenarioResult] {
    var results = [ScenarioResult]()
    if wants(.oneRecord) { results += oneRecordScenarios() }
    if wants(.list) { results += wholeStoreScenarios() }
    if wants(.import) { results.append(importScenario()) }
    if wants(.sync) { results += syncScenarios() }
    return results
  }

  /// `show`, `consume`, `restock`, `edit`, `delete`, `add` and `history ITEM` against sqlite3
  /// doing the same by an indexed column: within 5× by wall time, under half the store.
  func oneRecordScenarios() -> [ScenarioResult] {
    let target = name(size / 2)
    let quoted = "'\(target)'"
    let noSQLite = sqlite == nil ? "sqlite3 is not installed" : nil
    func row(
      _ name: String, ours make: @escaping (Int) -> [String],
      peer statement: @escaping (Int) -> String
    ) -> ScenarioResult {
      let (oursTiming, peer) = interleaved(
        runs, Side { run in ours(make(run)) }, Side { run in sql(statement(run)) })
      return ScenarioResult(
        name: name, ours: oursTiming, peerName: "sqlite3", peer: peer, allowedRatio: 5,
        memory: .halfStore, note: noSQLite)
    }
    // Each run deletes another item, and so does each invocation on a reused folder.
    let first = 1 + Int(Date().timeIntervalSince1970 / 10) % max(1, size / 2 - runs - 1)
    return [
      row(
        "show", ours: { _ in ["show", target, "--json"] },
        peer: { _ in "SELECT * FROM items WHERE name = \(quoted);" }),
      row(
        "consume", ours: { _ in ["consume", target] },
        peer: { _ in "UPDATE items SET quantity = quantity - 1 WHERE name = \(quoted);" }),
      row(
        "restock", ours: { _ in ["restock", target, "2"] },
        peer: { _ in "UPDATE items SET quantity = quantity + 2 WHERE name = \(quoted);" }),
      row(
        "edit", ours: { run in ["edit", target, "--notes", "Run \(run)"] },
        peer: { run in "UPDATE items SET notes = 'Run \(run)' WHERE name = \(quoted);" }),
      row(
        "delete", ours: { run in ["delete", name(first + run)] },
        peer: { run in "DELETE FROM items WHERE name = '\(name(first + run))';" }),
      row(
        "add", ours: { run in ["add", "New \(run)", "--quantity", "3"] },
        peer: { run in
          "INSERT INTO items(id, name, quantity) VALUES ('new-\(run)', 'New \(run)', 3);"
        }),
      // DESIGN: history is a one-record command ("what show costs"); this folder never synced.
      // Its item has a fixed history of 201 entries (``TargetBench/historyItem``).
      row(
        "history ITEM (unsynced)", ours: { _ in ["history", historyItem] },
        peer: { _ in "SELECT * FROM items WHERE name = '\(historyItem)';" }),
    ]
  }

  /// `list --json` and `list` against `jq -c .` over the store (at most 1× by wall time, peak
  /// at most the store), and `export` and `doctor`, judged by their peak memory only; each
  /// `wholeStoreRuns` times (at 1M, 7 runs of both lists and `jq` alone take 14 minutes;
  /// `export` and `doctor` `memoryOnlyRuns` times).
  func wholeStoreScenarios() -> [ScenarioResult] {
    let jqSide = Side { _ in jq.map { ($0, ["-c", ".", storePath]) } }
    let noJQ = jq == nil ? "jq is not installed" : nil
    var results = [ScenarioResult]()
    for (label, arguments) in [("list --json", ["list", "--json"]), ("list", ["list"])] {
      let (oursTiming, peer) = interleaved(wholeStoreRuns, Side { _ in ours(arguments) }, jqSide)
      results.append(
        ScenarioResult(
          name: label, ours: oursTiming, peerName: "jq -c .", peer: peer, allowedRatio: 1,
          memory: .store, note: noJQ))
    }
    for (label, arguments) in [
      ("export --format csv", ["export", "--format", "csv"]), ("doctor", ["doctor"]),
    ] {
      let (oursTiming, _) = interleaved(memoryOnlyRuns, Side { _ in ours(arguments) }, nil)
      results.append(
        ScenarioResult(
          name: label, ours: oursTiming, peerName: "-", peer: nil, allowedRatio: nil,
          memory: .store))
    }
    return results
  }

  /// `stash import` of the CSV into a new folder against Python's csv module reading it and
  /// writing JSON lines: within 2× by CPU time, peak at most the store.
  func importScenario() -> ScenarioResult {
    let fresh = folder + "/import-home"
    let script =
      "import csv,json,sys\nout=open(sys.argv[2],'w')\n"
      + "for row in csv.DictReader(open(sys.argv[1],newline='')): out.write(json.dumps(row)+'\\n')"
    let (oursTiming, peer) = interleaved(
      wholeStoreRuns,
      Side(
        prepare: { _ in
          try? FileManager.default.removeItem(atPath: fresh)
          return true
        }, command: { _ in (stash, ["--home", fresh, "import", csv]) }),
      Side { _ in python.map { ($0, ["-c", script, csv, folder + "/python.jsonl"]) } })
    return ScenarioResult(
      name: "import (CSV)", ours: oursTiming, peerName: "python3 csv", peer: peer,
      allowedRatio: 2, judge: .cpu, memory: .store,
      note: python == nil ? "python3 is not installed" : nil)
  }
}
