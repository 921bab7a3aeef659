import Foundation
import Stash
import StashModel

/// `stash-bench query [--fights N] [--runs N] [--dir DIR]`: one fight's 12 rounds asked by a
/// fresh process (issue 24, item 4), in seed 003's scorecard of N fights (300: 3,600 rounds).
///
/// The folder (`/tmp/stash-bench-query-N` unless `--dir` says) is made once and reused: the
/// fights and rounds in one transaction, then the index, written by the first query of a
/// folder opened without reading its store. Each run starts this tool again as a child
/// process that opens the folder that way (`options.focus(on: [])`) and asks for a random
/// fight's rounds twice (two fights); the same child, told `--whole`, opens it reading the
/// store, as before the index could answer. Medians of the open, the first and the second
/// query, and of the child's whole life (process start to exit) as the parent sees it.
func queryBenchmark(_ arguments: [String]) -> Int32 {
  if arguments.first == "--child" { return queryChild(Array(arguments.dropFirst())) }
  var fights = 300
  var runs = 15
  var folder: String?
  var index = 0
  while index < arguments.count {
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch (arguments[index], value.flatMap { Int($0) }) {
    case ("--fights", let number?) where (1...1_000_000).contains(number): fights = number
    case ("--runs", let number?) where (1...100).contains(number): runs = number
    case ("--dir", _) where value != nil: folder = value!
    default:
      printError(
        "stash-bench query: expected --fights 1...1000000, --runs 1...100 or --dir DIR, not "
          + "'\(arguments[index])'")
      return 2
    }
    index += 2
  }
  let home = folder ?? "/tmp/stash-bench-query-\(fights)"
  do {
    if !FileManager.default.fileExists(atPath: home + "/default.store") {
      let target = try SyncFolder.open(at: home, schemas: Scorecard.schemas)
      let records = Scorecard.records(fights: fights)
      try target.write { tx in
        for record in records { try tx.save(record) }
      }
    }
    // A focused open that finds no index reads the store whole; its query writes the index.
    _ = try SyncFolder.open(at: home, schemas: Scorecard.schemas, options: focusedOptions())
      .records(roundsQuery(fight: 0))
  } catch {
    printError("stash-bench query: \(error)")
    return 1
  }
  var samples: [String: [Double]] = [:]
  var random = SystemRandomNumberGenerator()
  for run in 0..<runs {
    for mode in run.isMultiple(of: 2) ? ["index", "whole"] : ["whole", "index"] {
      let fightsAsked = (0..<2).map { _ in String(Int.random(in: 0..<fights, using: &random)) }
      let start = Date()
      guard let output = runChild(["query", "--child", mode, home] + fightsAsked) else {
        printError("stash-bench query: the child process failed")
        return 1
      }
      samples["\(mode): process", default: []].append(Date().timeIntervalSince(start))
      let figures = output.split(separator: " ").compactMap { Double($0) }
      guard figures.count == 3 else {
        printError("stash-bench query: the child said '\(output)'")
        return 1
      }
      for (name, figure) in zip(["open", "first query", "second query"], figures) {
        samples["\(mode): \(name)", default: []].append(figure)
      }
    }
  }
  func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  print("\(fights * 12) rounds (\(fights) fights), \(runs) fresh processes each, medians")
  print("what                          ms")
  for mode in ["index", "whole"] {
    for name in ["open", "first query", "second query", "process"] {
      let values = samples["\(mode): \(name)"] ?? []
      print(
        "\(mode): \(name)".padding(toLength: 24, withPad: " ", startingAt: 0)
          + String(format: "%10.3f", median(values) * 1000))
    }
  }
  return 0
}

/// The child: `--child index|whole DIR FIGHT FIGHT` prints the open's, the first and the
/// second query's seconds.
private func queryChild(_ arguments: [String]) -> Int32 {
  guard arguments.count == 4, let first = Int(arguments[2]), let second = Int(arguments[3]) else {
    return 2
  }
  let focused = arguments[0] == "index"
  do {
    let start = Date()
    let folder = try SyncFolder.open(
      at: arguments[1], schemas: Scorecard.schemas,
      options: focused ? focusedOptions() : SyncFolder.Options(access: .reading))
    let opened = Date()
    let rounds = try folder.records(roundsQuery(fight: first))
    let queried = Date()
    let more = try folder.records(roundsQuery(fight: second))
    let again = Date()
    guard rounds.count == 12, more.count == 12 else {
      printError("stash-bench query: \(rounds.count) and \(more.count) rounds, not 12")
      return 1
    }
    print(
      opened.timeIntervalSince(start), queried.timeIntervalSince(opened),
      again.timeIntervalSince(queried))
    return 0
  } catch {
    printError("stash-bench query: \(error)")
    return 1
  }
}

/// Options that open a folder without reading its store: queries then read the index.
private func focusedOptions() -> SyncFolder.Options {
  var options = SyncFolder.Options(access: .reading)
  options.focus(on: [])
  return options
}

private func roundsQuery(fight: Int) -> RecordQuery {
  RecordQuery("round")
    .where("fight", equals: RecordID.derived(model: "fight", naturalKey: "fight-\(fight)"))
    .sorted(by: "number")
}

/// Runs this tool again with `arguments`; its standard output, or `nil` when it failed.
private func runChild(_ arguments: [String]) -> String? {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  do { try process.run() } catch { return nil }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { return nil }
  return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
