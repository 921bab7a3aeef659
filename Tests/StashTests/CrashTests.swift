import Foundation
import JSONLines
import Stash
import StashModel
import StashTestSupport
import StashWorkload
import Testing

/// Crash injection: a child process runs a seeded two-device workload (adds with photos,
/// consumes, restocks, deletes, syncs through a shared folder, a conflict and its resolution,
/// restarts, and compactions of both stores) and is killed with SIGKILL at a seeded file-system
/// call, sometimes in the middle of a write. After each kill every store opens, every step the
/// child reported saved is there, nothing is half-applied, and the folders keep syncing.
///
/// `STASH_CRASH_TRIALS=<n>` runs more trials; `STASH_SEED=<n>` replays one.
@Suite struct CrashTests {
  /// The workloads the trials share (each is prepared and run once as a reference).
  static let workloads: [UInt64] = [1, 2, 3]

  /// The trials to run: `STASH_SEED` alone, or `STASH_CRASH_TRIALS` (default 300) seeds.
  static var trialSeeds: [UInt64] {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment["STASH_SEED"], let seed = UInt64(text) { return [seed] }
    let count = environment["STASH_CRASH_TRIALS"].flatMap(Int.init) ?? 300
    return (0..<UInt64(max(count, 1))).map { $0 + 1000 }
  }

  /// The child executable, built beside the test runner.
  static var child: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(
          "StashCrashChild")
      }
    #endif
    return Bundle.main.bundleURL.appendingPathComponent("StashCrashChild")
  }

  @Test func aKillAtAnyCallLeavesEveryStoreAtACommitWithEverySavedStep() async throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: Self.child.path),
      "No 'StashCrashChild' at \(Self.child.path); run 'swift build' first")
    let seeds = Self.trialSeeds
    try await withTemporaryFolderAsync(inMemory: true) { folder in
      var made: [UInt64: ReferenceRun] = [:]
      for seed in Set(seeds.map { Self.workloads[Int($0 % UInt64(Self.workloads.count))] }) {
        made[seed] = try ReferenceRun(
          Workload(seed: seed), in: folder.appendingPathComponent("template-\(seed)"))
      }
      let references = made
      // The calls of each reference that belong to a compaction (its temporary file).
      var compacting: [UInt64: [Int]] = [:]
      for (seed, reference) in references {
        let renames = reference.calls.filter { $0.operation == .rename }.map(\.path)
        for store in ["default.store", "cloud.store"] {
          #expect(
            renames.contains { $0.hasSuffix("/" + store) },
            "workload \(seed) never compacts \(store)")
        }
        compacting[seed] = Array(
          reference.calls.filter { $0.path.contains(".store.tmp") }.map(\.number)
        ).sorted()
      }
      let compactingCalls = compacting
      let inCompaction = LockedBox(0)
      let killed = LockedBox(0)
      let torn = LockedBox(0)
      try await forEachConcurrently(seeds.count) { index in
        let seed = seeds[index]
        let workload = Self.workloads[Int(seed % UInt64(Self.workloads.count))]
        var random = SeededRandom(seed: seed)
        let reference = references[workload]!
        // One trial in four is killed inside a compaction, the rest anywhere.
        let call =
          Int.random(in: 0..<4, using: &random) == 0
          ? compactingCalls[workload]!.randomElement(using: &random)!
          : Int.random(in: 1...reference.ends.last!, using: &random)
        let tear = Bool.random(using: &random) ? -1 : Int.random(in: 0..<200, using: &random)
        if compactingCalls[workload]!.contains(call) { inCompaction.withLock { $0 += 1 } }
        let context =
          "trial seed \(seed) (replay: STASH_SEED=\(seed)): workload \(workload), killed at call "
          + "\(call)" + (tear >= 0 ? " keeping \(tear) bytes of a write" : "")
        do {
          try withTemporaryFolder(inMemory: true) { trialFolder in
            let wasKilled = try Self.trial(
              reference, call: call, tear: tear, in: trialFolder, context)
            if wasKilled { killed.withLock { $0 += 1 } }
            if wasKilled && tear >= 0 { torn.withLock { $0 += 1 } }
          }
        } catch {
          Issue.record("\(context): \(error)")
        }
      }
      print(
        "CrashTests: \(seeds.count) trials (seeds \(seeds.first!)...\(seeds.last!)) over "
          + "\(references.count) workloads, \(killed.withLock { $0 }) killed mid-workload "
          + "(\(torn.withLock { $0 }) with a tear setting, \(inCompaction.withLock { $0 }) inside a "
          + "compaction)")
    }
  }

  /// Runs one trial; returns whether the child was killed (rather than finishing first).
  private static func trial(
    _ reference: ReferenceRun, call: Int, tear: Int, in folder: URL, _ context: String
  ) throws -> Bool {
    let root = try reference.copy(to: folder)
    let process = try Subprocess(
      Self.child.path, [root.path, "\(reference.workload.seed)", "\(call)", "\(tear)"],
      // Fixed hashing, so that the child makes the same calls in the same order on every run
      // and STASH_SEED replays a trial exactly.
      environment: ["PATH": "/usr/bin:/bin", "SWIFT_DETERMINISTIC_HASHING": "1"])
    let (status, output, errors) = process.wait()
    let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
    let finished = lines.last?.hasPrefix("done") == true
    #expect(
      finished ? status == 0 : status == 128 + 9,
      "\(context): exit \(status): \(String(decoding: errors, as: UTF8.self))")
    // What the child said about each step, and the step it was in when it died.
    var reported: [Int: Workload.Outcome] = [:]
    var inProgress: Int?
    for line in lines {
      let words = line.split(separator: " ", maxSplits: 2)
      guard words.count >= 2, let index = Int(words[1]) else { continue }
      switch words[0] {
      case "begin": inProgress = index
      case "saved": reported[index] = .saved
      case "skipped": reported[index] = .skipped
      case "failed": reported[index] = .failed(words.count > 2 ? String(words[2]) : "")
      default: continue
      }
      if words[0] != "begin" { inProgress = nil }
    }
    for (index, outcome) in reported {
      #expect(outcome == reference.outcomes[index], "\(context): step \(index) said \(outcome)")
    }
    let done = reported.count
    let state = try ReferenceRun.state(of: root)  // opens every store, setting aside tails
    for device in Workload.Device.allCases {
      let before = reference.states[done]
      let after = reference.states[
        min(done + (inProgress == nil ? 0 : 1), reference.states.count - 1)]
      let local = state.local[device]
      #expect(
        local == before.local[device] || local == after.local[device],
        "\(context): \(device)'s inventory is neither before nor after step \(done)")
      let versions = state.versions[device] ?? []
      #expect(
        before.versions[device, default: []].isSubset(of: versions)
          && versions.isSubset(of: after.versions[device, default: []]),
        "\(context): \(device)'s mirror is not between step \(done) and the next")
    }
    try expectUsable(root, reference.workload, context)
    return !finished
  }
}
