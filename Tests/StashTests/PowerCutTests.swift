import Foundation
import JSONLines
import Stash
import StashBase
import StashModel
import StashTestSupport
import StashWorkload
import Testing

/// Power cuts, not just crashes (issue 22): a workload of two devices runs once through a
/// ``ScriptedFileSystem`` (recording power cuts), which records every write, fsync, create, rename, link, unlink and
/// folder fsync; for each command, seeded samples of the states a power cut during it could
/// leave (pages written since the last fsync kept or lost in any order, name changes without a
/// folder fsync undone) are written to disk and checked (``PowerCutCheck``):
/// - every store opens at a commit, at worst after `doctor --repair`, and reading changes
///   nothing;
/// - every command that had returned is there, and the one in progress is there whole or not
///   at all;
/// - after syncing both devices twice, each holds what it holds when the same syncs follow
///   the command finished or never run: no stock move lost or counted twice.
///
/// `STASH_POWER_CUT_STATES=<n>` checks up to n states per command (default 140);
/// `STASH_SEED=<n>` replays the sampling of seed n (the workload's calls are the same on
/// every run but for the order of writes made on two cores at once).
@Suite struct PowerCutTests {
  /// One command of the workload, and whether power cuts during it are tried.
  struct Command {
    let label: String
    let device: Workload.Device
    let action: Workload.Action
    let sampled: Bool

    init(
      _ label: String, _ device: Workload.Device, _ action: Workload.Action, sampled: Bool = true
    ) {
      self.label = label
      self.device = device
      self.action = action
      self.sampled = sampled
    }
  }

  /// Every command issue 22 lists, on a store large enough that saves cross pages.
  static let commands: [Command] = [
    Command("add", .a, .add("item-1", quantity: 12, photo: false), sampled: false),
    Command("add", .a, .add("item-2", quantity: 8, photo: false), sampled: false),
    Command("add", .a, .add("item-3", quantity: 5, photo: false), sampled: false),
    Command("sync", .a, .sync, sampled: false),
    Command("sync", .b, .sync, sampled: false),
    Command("photo add", .a, .add("item-4", quantity: 3, photo: true)),
    Command("add", .a, .add("item-5", quantity: 6, photo: false)),
    Command("consume", .a, .consume("item-1", 1)),
    Command("edit", .a, .edit("item-2", notes: String(repeating: "Shelf 3, ", count: 30))),
    Command("delete", .a, .delete("item-3")),
    Command("undo", .a, .undo("item-2")),
    Command("import (small)", .a, .importItems(count: 3)),
    Command("import (large)", .a, .importItems(count: 60)),
    Command("sync (exports)", .a, .sync),
    Command("consume", .b, .consume("item-1", 2), sampled: false),
    Command("sync (imports, merges moves)", .b, .sync),
    Command("sync (imports, merges moves)", .a, .sync, sampled: false),
    Command("recount", .b, .recount("item-2", 4), sampled: false),
    Command("consume", .a, .consume("item-2", 1), sampled: false),
    Command("sync", .a, .sync, sampled: false),
    Command("sync", .b, .sync, sampled: false),
    Command("conflicts resolve", .b, .resolve),
    Command("compaction", .b, .compact),
    Command("damage the tails", .a, .damageTails, sampled: false),
    Command("doctor --repair", .a, .repair),
    Command("sync new-identity", .b, .newIdentity),
    Command("sync (after new-identity)", .b, .sync),
  ]

  static var statesPerCommand: Int {
    ProcessInfo.processInfo.environment["STASH_POWER_CUT_STATES"].flatMap(Int.init) ?? 140
  }

  @Test func everyStateAPowerCutLeavesOpensWithEverySavedCommandAndSyncsAgain() async throws {
    let seed = TestEnvironment.seeds(default: 1).first! + 2200
    print("PowerCutTests: seed \(seed) (replay: STASH_SEED=\(seed - 2200))")
    var random = SeededRandom(seed: seed)
    let workload = Workload(seed: 22, script: Self.commands.map { ($0.device, $0.action) })
    try await withTemporaryFolderAsync(inMemory: true) { folder in
      let recorded = try Self.record(workload, in: folder)
      var replay = recorded.replay
      let expectations = ExpectationCache(workload: workload, folder: folder)
      var counts: [String: (states: Int, deep: Int, repaired: Int, finished: Int)] = [:]
      var order: [String] = []
      for (index, command) in Self.commands.enumerated() {
        guard command.sampled else {
          replay.advance(to: recorded.ends[index + 1])
          continue
        }
        let before = try expectations.expectation(replay.sample(.allKept, using: &random), replay)
        let states = replay.states(
          through: recorded.ends[index + 1], count: Self.statesPerCommand, using: &random)
        let after = try expectations.expectation(replay.sample(.allKept, using: &random), replay)
        let identities = replay.identities
        let results = LockedBox<[PowerCutCheck.Result]>([])
        let deepened = LockedBox<Set<SHA256Digest>>([])
        let failures = LockedBox(0)
        try await forEachConcurrently(states.count) { number in
          let state = states[number]
          let context =
            "seed \(seed), step \(index) (\(command.device.rawValue) \(command.label)): \(state)"
          let place = folder.appendingPathComponent("state-\(index)-\(number)")
          defer { try? FileManager.default.removeItem(at: place) }
          let files = try state.write(to: place.path, identities: identities)
          if let keep = ProcessInfo.processInfo.environment["STASH_POWER_CUT_KEEP"] {
            // For a closer look: every state of the step as it was written, before its checks.
            try? FileManager.default.copyItem(
              at: place,
              to: URL(fileURLWithPath: keep).appendingPathComponent(place.lastPathComponent))
          }
          let check = PowerCutCheck(
            workload: workload, root: place, files: files, device: command.device,
            before: before, after: after)
          let core = state.fingerprint { !PowerCutCheck.isDerived($0) }
          let deep = deepened.withLock { $0.insert(core).inserted }
          let result = check.run(deep: deep) { problem in
            // The first few in full; the count says how many more.
            let shown = failures.withLock { count in
              count += 1
              return count <= 8
            }
            if shown { Issue.record("\(problem); in \(context)") }
          }
          results.withLock { $0.append(result) }
        }
        let found = results.withLock { $0 }
        let failed = failures.withLock { $0 }
        #expect(failed == 0, "step \(index) (\(command.label)): \(failed) failed checks")
        if counts[command.label] == nil { order.append(command.label) }
        let old = counts[command.label] ?? (0, 0, 0, 0)
        counts[command.label] = (
          old.states + found.count, old.deep + found.filter(\.deep).count,
          old.repaired + found.filter(\.repaired).count,
          old.finished + found.filter(\.finished).count
        )
      }
      let total = counts.values.map(\.states).reduce(0, +)
      print(
        "PowerCutTests: \(total) power-cut states, by command (states / checked in depth / "
          + "needing doctor --repair / with the command finished): "
          + order.map { label in
            let count = counts[label]!
            return "\(label) \(count.states)/\(count.deep)/\(count.repaired)/\(count.finished)"
          }.joined(separator: ", "))
      #expect(total >= 2000 || Self.statesPerCommand < 140)
    }
  }

  /// Runs the workload once through a recording file system.
  static func record(_ workload: Workload, in folder: URL) throws -> (
    replay: PowerCutReplay, ends: [Int]
  ) {
    let root = folder.appendingPathComponent("recorded")
    try workload.prepare(in: root)
    let files = try ScriptedFileSystem(recordingPowerCutsUnder: root.path)
    let run = Workload.Run(workload: workload, root: root, fileSystem: files)
    var ends = [files.eventCount]
    for step in workload.steps {
      let outcome = run.perform(step)
      #expect(outcome == .saved, "\(step): \(outcome)")
      ends.append(files.eventCount)
    }
    #expect(files.problems.isEmpty, "\(files.problems)")
    // Nothing may reach the recorded folder any more: every check works on a copy.
    try FileManager.default.removeItem(at: root)
    return (files.replay(), ends)
  }
}
