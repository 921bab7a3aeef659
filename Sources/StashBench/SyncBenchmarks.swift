import Foundation
import LocalStore
import Stash
import StashModel

/// The sync scenarios of `stash-bench targets`.
///
/// - `sync (nothing new)` and `sync (one edit)`: a device folder at the chosen size, synced
///   once, against the same at 1,000 items (the peer is "ours at 1k"; target within 2×). The
///   edit is a `consume` of one item before each timed run, not timed.
/// - `first sync (empty folder)`: a copy of the benchmark's store, sync turned on, into an
///   empty shared folder; `second device import`: a new device folder syncing from it. Both
///   against `jq -c .` reading the segment files the first sync wrote (target within 2×).
///
/// Everything lives in `sync-*` folders beside the benchmark's home, made again on every run
/// (the benchmark's home itself is never synced, so the one-record scenarios stay as they were).
extension TargetBench {
  var syncHome: String { folder + "/sync-a" }
  var secondHome: String { folder + "/sync-b" }
  var syncCloud: String { folder + "/sync-cloud" }
  var smallFolder: String { folder + "/sync-1k" }

  /// How often a scenario that costs a whole store is run: at most 3, once at 1M items.
  var wholeStoreRuns: Int { size >= 1_000_000 ? 1 : min(runs, 3) }

  /// Every sync scenario, in the order of DESIGN's targets.
  func syncScenarios() -> [ScenarioResult] {
    let manager = FileManager.default
    // A first sync into an empty shared folder, from a copy of the benchmark's store.
    var firsts = [Measurement]()
    for _ in 0..<wholeStoreRuns {
      guard prepareUnsynced(copyOf: home, into: syncHome, cloud: syncCloud) else { break }
      firsts.append(measure(stash, ["--home", syncHome, "sync"]))
    }
    let segments = segmentFiles(in: syncCloud)
    let jqSegments = jq.flatMap { jq in
      segments.isEmpty
        ? nil
        : Timing((0..<min(runs, 3)).map { _ in measure(jq, ["-c", "."] + segments) })
    }
    let jqNote = jq == nil ? "jq is not installed" : nil
    var results = [
      ScenarioResult(
        name: "first sync (empty folder)", ours: Timing(firsts), peerName: "jq -c . segments",
        peer: jqSegments, allowedRatio: 2, memoryBound: false, note: jqNote)
    ]
    // A second device importing everything the first one exported.
    var seconds = [Measurement]()
    for _ in 0..<wholeStoreRuns where !segments.isEmpty {
      try? manager.removeItem(atPath: secondHome)
      guard runStash(["--home", secondHome, "sync", "enable", "--cloud", syncCloud]) else { break }
      seconds.append(measure(stash, ["--home", secondHome, "sync"]))
    }
    results.append(
      ScenarioResult(
        name: "second device import", ours: Timing(seconds), peerName: "jq -c . segments",
        peer: jqSegments, allowedRatio: 2, memoryBound: false, note: jqNote))
    // Sync at this size against the same at 1k.
    let small = prepareSmall()
    let smallHome = smallFolder + "/home"
    let target = name(size / 2)
    let smallTarget = name(500)
    results.append(
      ScenarioResult(
        name: "sync (nothing new)", ours: syncTiming(home: syncHome, edit: nil),
        peerName: "ours at 1k",
        peer: small ? syncTiming(home: smallHome, edit: nil) : nil, allowedRatio: 2,
        memoryBound: false, note: small ? nil : "the 1k folder could not be made"))
    results.append(
      ScenarioResult(
        name: "sync (one edit)", ours: syncTiming(home: syncHome, edit: target),
        peerName: "ours at 1k",
        peer: small ? syncTiming(home: smallHome, edit: smallTarget) : nil, allowedRatio: 2,
        memoryBound: false, note: small ? nil : "the 1k folder could not be made"))
    return results
  }

  /// `runs` timed `stash sync` runs on `home`, each after an untimed `consume` of `edit`.
  func syncTiming(home: String, edit: String?) -> Timing? {
    var results = [Measurement]()
    for _ in 0..<runs {
      if let edit, !runStash(["--home", home, "consume", edit]) { return nil }
      results.append(measure(stash, ["--home", home, "sync"]))
    }
    return Timing(results)
  }

  /// Makes `target` a device folder holding a copy of `source`'s store, with sync turned on
  /// through the empty folder `cloud`.
  func prepareUnsynced(copyOf source: String, into target: String, cloud: String) -> Bool {
    let manager = FileManager.default
    try? manager.removeItem(atPath: target)
    try? manager.removeItem(atPath: cloud)
    do {
      try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
      try manager.createDirectory(atPath: cloud, withIntermediateDirectories: true)
      for name in [LocalStore.fileName, LocalStore.fileName + ".index"] {
        let from = source + "/" + name
        if manager.fileExists(atPath: from) {
          try manager.copyItem(atPath: from, toPath: target + "/" + name)
        }
      }
    } catch {
      printError("stash-bench targets: could not copy '\(source)': \(error)")
      return false
    }
    return runStash(["--home", target, "sync", "enable", "--cloud", cloud])
  }

  /// Makes the 1k peer: 1,000 items, synced once into its own shared folder.
  func prepareSmall() -> Bool {
    let manager = FileManager.default
    let origin = smallFolder + "/origin"
    if !manager.fileExists(atPath: origin + "/" + LocalStore.fileName) {
      do {
        try manager.createDirectory(atPath: origin, withIntermediateDirectories: true)
        let device = try DeviceFolder.open(at: origin)
        let items = benchmarkItems(1000)
        try device.folder.local!.update("the benchmark's items") { _, transaction in
          for item in items { try transaction.insert(item.record) }
        }
      } catch {
        printError("stash-bench targets: could not make the 1k folder: \(error)")
        return false
      }
    }
    let home = smallFolder + "/home"
    return prepareUnsynced(copyOf: origin, into: home, cloud: smallFolder + "/cloud")
      && runStash(["--home", home, "sync"])
  }

  /// Runs `stash` with `arguments`, untimed; whether it exited 0.
  func runStash(_ arguments: [String]) -> Bool {
    let result = measure(stash, arguments)
    if result.status != 0 {
      printError("stash-bench targets: 'stash \(arguments.joined(separator: " "))' failed")
    }
    return result.status == 0
  }

  /// Every segment file under `cloud/devices`, sorted.
  func segmentFiles(in cloud: String) -> [String] {
    let manager = FileManager.default
    let devices = cloud + "/devices"
    let folders = (try? manager.contentsOfDirectory(atPath: devices)) ?? []
    return folders.sorted().flatMap { device in
      ((try? manager.contentsOfDirectory(atPath: devices + "/" + device)) ?? [])
        .filter { $0.hasSuffix(".jsonl") }.sorted().map { devices + "/" + device + "/" + $0 }
    }
  }
}
