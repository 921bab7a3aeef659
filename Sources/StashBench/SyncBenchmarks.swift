import Foundation
import LocalStore

/// The sync scenarios of `stash-bench targets`, each interleaved with its peer.
///
/// - `first sync (empty folder)`: a copy of the benchmark's store, sync turned on, into an
///   empty shared folder; `second device import`: a new device folder syncing from it. Both
///   against `jq -c .` reading the segment files the first sync wrote, by CPU time (target
///   within 2×), peak memory at most the store.
/// - Then, on device A (the first sync's folder) at the chosen size against the same on a
///   1,000-item pair of devices ("ours at 1k", target within 2× by wall time): a sync with
///   nothing new; a sync of one local edit (an untimed `consume` first); a sync with nothing
///   new right after a sync of one local edit (an untimed `consume` and `sync` first); a sync
///   after another device's one edit (device B, sharing the folder, consumes and syncs first,
///   untimed); `sync status`; `history ITEM` of an item edited and synced in every run before.
/// - `sync verify`: linear, against the 1k figure times size / 1,000; peak at most the store.
///
/// Everything lives in `sync-*` folders beside the benchmark's home, made again on every run
/// (the benchmark's home itself is never synced, so the one-record scenarios stay as they were).
extension TargetBench {
  var syncHome: String { folder + "/sync-a" }
  var secondHome: String { folder + "/sync-b" }
  var syncCloud: String { folder + "/sync-cloud" }
  var smallFolder: String { folder + "/sync-1k" }
  var smallHome: String { smallFolder + "/home" }
  var smallSecond: String { smallFolder + "/home-b" }

  /// Every sync scenario, in the order of the issue's table.
  func syncScenarios() -> [ScenarioResult] {
    let segments = Side { _ in
      let files = segmentFiles(in: syncCloud)
      return files.isEmpty ? nil : jq.map { ($0, ["-c", "."] + files) }
    }
    let jqNote = jq == nil ? "jq is not installed" : nil
    var results = [ScenarioResult]()
    // A first sync into an empty shared folder, from a copy of the benchmark's store.
    let (firsts, jqFirst) = interleaved(
      wholeStoreRuns,
      Side(
        prepare: { _ in prepareUnsynced(copyOf: home, into: syncHome, cloud: syncCloud) },
        command: { _ in ours(["sync"], home: syncHome) }), segments)
    results.append(
      ScenarioResult(
        name: "first sync (empty folder)", ours: firsts, peerName: "jq -c . segments",
        peer: jqFirst, allowedRatio: 2, judge: .cpu, memory: .store, note: jqNote))
    // A second device importing everything the first one exported.
    let (seconds, jqSecond) = interleaved(
      wholeStoreRuns,
      Side(
        prepare: { _ in
          try? FileManager.default.removeItem(atPath: secondHome)
          return runStash(["--home", secondHome, "sync", "enable", "--cloud", syncCloud])
        }, command: { _ in ours(["sync"], home: secondHome) }), segments)
    results.append(
      ScenarioResult(
        name: "second device import", ours: seconds, peerName: "jq -c . segments",
        peer: jqSecond, allowedRatio: 2, judge: .cpu, memory: .store, note: jqNote))
    let small = prepareSmall()
    guard firsts != nil, seconds != nil, small else {
      printError("stash-bench targets: the sync folders could not be made; sync rows left out")
      return results
    }
    // Both pairs settled: each device has seen the other's last sync.
    for device in [syncHome, secondHome, syncHome, smallHome, smallSecond, smallHome] {
      _ = runStash(["--home", device, "sync"])
    }
    let target = name(size / 2)
    let smallTarget = name(500)
    func compare(
      _ label: String, _ arguments: [String], memory: MemoryTarget? = nil,
      before: @escaping (String, String, String) -> Bool = { _, _, _ in true }
    ) {
      func side(_ home: String, _ second: String, _ item: String) -> Side {
        Side(
          prepare: { _ in before(home, second, item) },
          command: { _ in ours(arguments.map { $0 == "ITEM" ? item : $0 }, home: home) })
      }
      let (large, peer) = interleaved(
        runs, side(syncHome, secondHome, target), side(smallHome, smallSecond, smallTarget))
      results.append(
        ScenarioResult(
          name: label, ours: large, peerName: "ours at 1k", peer: peer, allowedRatio: 2,
          memory: memory))
    }
    compare("sync (nothing new)", ["sync"])
    compare("sync (one local edit)", ["sync"]) { home, _, item in
      runStash(["--home", home, "consume", item])
    }
    compare("sync (nothing new, after a sync of one local edit)", ["sync"]) { home, _, item in
      runStash(["--home", home, "consume", item]) && runStash(["--home", home, "sync"])
    }
    compare("sync (after another device's one edit)", ["sync"]) { _, second, item in
      runStash(["--home", second, "consume", item]) && runStash(["--home", second, "sync"])
    }
    compare("sync status", ["sync", "status"], memory: .halfStore)
    compare("history ITEM (synced)", ["history", "ITEM"], memory: .halfStore)
    let (verify, smallVerify) = interleaved(
      wholeStoreRuns, Side { _ in ours(["sync", "verify"], home: syncHome) },
      Side { _ in ours(["sync", "verify"], home: smallHome) })
    results.append(
      ScenarioResult(
        name: "sync verify", ours: verify, peerName: "ours at 1k", peer: smallVerify,
        allowedRatio: 1, peerScale: Double(size) / 1000, memory: .store))
    return results
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

  /// Makes the 1k peer: 1,000 items imported from the benchmark's CSV generator, synced once
  /// into its own shared folder, and a second device that imported them.
  func prepareSmall() -> Bool {
    let manager = FileManager.default
    let origin = smallFolder + "/origin"
    if !manager.fileExists(atPath: origin + "/" + LocalStore.fileName) {
      do {
        try manager.createDirectory(atPath: smallFolder, withIntermediateDirectories: true)
        try makeHome(origin, items: 1000, csv: smallFolder + "/items.csv")
        _ = runStash(["--home", origin, "restock", name(500), "1000"])
      } catch {
        printError("stash-bench targets: could not make the 1k folder: \(error)")
        return false
      }
    }
    let cloud = smallFolder + "/cloud"
    try? manager.removeItem(atPath: smallSecond)
    return prepareUnsynced(copyOf: origin, into: smallHome, cloud: cloud)
      && runStash(["--home", smallHome, "sync"])
      && runStash(["--home", smallSecond, "sync", "enable", "--cloud", cloud])
      && runStash(["--home", smallSecond, "sync"])
  }

  /// Runs `stash` with `arguments`, untimed; whether it exited 0.
  func runStash(_ arguments: [String]) -> Bool {
    let result = measure(stash, arguments)
    if result.status != 0 {
      noteChildFailure("'stash \(arguments.joined(separator: " "))' failed")
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
