import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `stash-bench` is how speed is measured (never a timed test): its command line works, and a
/// tiny `targets` run prints every figure as JSON. Nothing here looks at a time.
@Suite struct BenchCommandTests {
  static var binary: URL {
    CLI.binary.deletingLastPathComponent().appendingPathComponent("stash-bench")
  }

  static func bench(_ arguments: [String]) throws -> Run {
    let child = try Subprocess(binary.path, arguments, environment: ["PATH": "/usr/bin:/bin"])
    let (status, output, errors) = child.wait()
    return Run(
      status: status, standardOutput: String(decoding: output, as: UTF8.self),
      standardError: String(decoding: errors, as: UTF8.self))
  }

  @Test(arguments: [["--help"], ["targets", "--help"], ["targets", "-h"]])
  func helpListsTheTargetsAndExitsZero(_ arguments: [String]) throws {
    let help = try Self.bench(arguments)
    #expect(help.status == 0, "\(help)")
    #expect(help.standardOutput.contains("targets"), "\(help)")
    #expect(help.standardOutput.contains("--only GROUP"), "\(help)")
  }

  @Test(arguments: [["targets", "--size", "2k"], ["targets", "--only", "everything"], ["nope"]])
  func aMistakeExitsTwoWithAMessage(_ arguments: [String]) throws {
    let run = try Self.bench(arguments)
    #expect(run.status == 2, "\(run)")
    #expect(!run.standardError.isEmpty, "\(run)")
  }

  @Test func aTinyOneRecordRunPrintsEachScenarioAsJSON() throws {
    try withTemporaryFolder { folder in
      let run = try Self.bench([
        "targets", "--size", "1k", "--runs", "1", "--only", "one-record", "--json", "--dir",
        folder.appendingPathComponent("bench").path,
      ])
      #expect(run.status == 0, "\(run)")
      let text = run.standardOutput
      for scenario in ["show", "consume", "restock", "edit", "delete", "add"] {
        #expect(text.contains("\"\(scenario)\""), "\(scenario) in \(text)")
      }
      #expect(!text.contains("\"list\""), "--only keeps one group: \(text)")
      _ = try JSONParser.parse(text)
      // `history ITEM` shows an item with a fixed history, made once with the folder.
      #expect(text.contains("\"history ITEM (unsynced)\""), "\(text)")
      let marker = folder.appendingPathComponent("bench/history-item").path
      let made = try String(contentsOfFile: marker, encoding: .utf8)
      #expect(made == "'Product 501' edited 200 times\n", "\(made)")
    }
  }

  /// The sync group's JSON carries, for every row, both sides' medians of wall and CPU time
  /// and peak memory, and the run's load average (issue 26, item 6): the remote-edit and
  /// after-sealed-sync rows included. Nothing here looks at a figure's value.
  @Test func aTinySyncRunCarriesMediansCPUAndPeakForEveryRow() throws {
    try withTemporaryFolder { folder in
      let run = try Self.bench([
        "targets", "--size", "1k", "--runs", "1", "--only", "sync", "--json", "--dir",
        folder.appendingPathComponent("bench").path,
      ])
      #expect(run.status == 0, "\(run)")
      let object = try JSONParser.parse(run.standardOutput)
      #expect(object["loadAverage"]?["before"]?.elements.count == 3, "\(run)")
      #expect(object["loadAverage"]?["after"]?.elements.count == 3, "\(run)")
      let scenarios = object["scenarios"]?.elements ?? []
      let names = scenarios.compactMap { $0["name"]?.text }
      for expected in [
        "first sync (empty folder)", "second device import", "sync (nothing new)",
        "sync (one local edit)", "sync (nothing new, after a sync of one local edit)",
        "sync (after another device's one edit)", "sync status", "history ITEM (synced)",
        "sync verify",
      ] {
        #expect(names.contains(expected), "\(expected) in \(names)")
      }
      for scenario in scenarios {
        for side in ["ours", "peerTiming"] {
          for field in ["medianMs", "bestMs", "cpuMedianMs", "peakBytes"] {
            let value = scenario[side]?[field]
            let isNumber: Bool
            switch value {
            case .integer?, .double?: isNumber = true
            default: isNumber = false
            }
            #expect(isNumber, "\(side).\(field) of \(scenario)")
          }
        }
        #expect(scenario["judgedBy"] != nil && scenario["met"] != nil, "\(scenario)")
      }
    }
  }
}
