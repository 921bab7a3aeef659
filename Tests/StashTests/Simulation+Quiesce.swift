import Foundation
import LocalStore
import MirrorStore
import Reconciler
import Stash
import StashBase
import StashModel
import StashTestSupport

extension Simulation {
  /// Everyone online, everything delivered, everyone syncs until nothing moves (no segment
  /// exported in a whole round, then one more round); then devices without open conflicts must
  /// hold equal stores.
  mutating func quiesce() throws {
    // The person says the two zones are one inventory at last, if nobody did.
    try joinZones()
    quiescing = true
    for device in devices { device.online = true }
    var quietRounds = 0
    var rounds = 0
    while quietRounds < 2 {
      rounds += 1
      guard rounds <= 10 else {
        problems.append("5: the devices never stopped exporting")
        break
      }
      let filesBefore = try devices.map { try files(in: $0.view) }
      for from in devices {
        for to in devices where to !== from { try deliver(from: from.view, to: to.view) }
      }
      for device in devices { try sync(device) }
      let filesAfter = try devices.map { try files(in: $0.view) }
      quietRounds = filesAfter == filesBefore ? quietRounds + 1 : 0
    }
    checkNoSilentLoss()
    // 5. Convergence.
    let folders = try devices.map { try restart($0) }
    try checkHealed(folders)
    checkMoves(folders)
    let conflicted = Set(folders.flatMap { $0.folder.conflicts().map(\.key) })
    var views = [RecordKey: Set<String>]()
    for folder in folders {
      let content = folder.folder.content!
      for key in content.keys.union(content.rowsByKey.keys) where !conflicted.contains(key) {
        views[key, default: []].insert(content.row(for: key)?.hash.hex ?? "none")
      }
    }
    for (key, seen) in views where seen.count > 1 {
      let detail = folders.enumerated().map { index, folder -> String in
        let content = folder.folder.content!
        let mirror = folder.folder.mirror.store!.content
        let row = content.row(for: key)?.hash.short ?? "-"
        let tombstone =
          content.tombstones[key].map { "\($0.hash.short) of \($0.deletedHash.short)" } ?? "-"
        let checkpoint = content.checkpoints[key]?.description ?? "-"
        let leaves = mirror.side(for: key).leaves.map(\.description).joined(separator: " | ")
        let conflicts = content.conflicts.values.filter { $0.key == key }
          .map { "\($0.kind.rawValue)/\($0.state.rawValue)" }
        let files = (try? self.files(in: devices[index].view)) ?? []
        let unread = files.filter { $0.hasPrefix("devices/") && !mirror.readSegments.contains($0) }
        return
          "d\(index): row \(row), tombstone \(tombstone), C \(checkpoint), leaves [\(leaves)], "
          + "conflicts \(conflicts), pending \(mirror.pending.count), unread \(unread), "
          + "exported \(mirror.exportedSegments)"
      }
      problems.append(
        "5: \(key) diverged without a conflict: \(seen.map { $0.prefix(8) }); \(detail)")
    }
    totals.crissCrossMerges += Self.crissCrossMerges(in: folders)
    checkConflictsEverywhere(folders)
    checkFieldEdits(folders)
    try settleEveryConflict()
    totals.incarnations = incarnations.withLock { $0 }
  }

  /// The versions in the first device's mirror that merged leaves with several lowest common
  /// ancestors (a criss-cross: their merge was the base).
  static func crissCrossMerges(in folders: [DeviceFolder]) -> Int {
    guard let mirror = folders.first?.folder.mirror.store?.content else { return 0 }
    var found = 0
    for versions in mirror.versions.values where versions.count > 2 {
      let graph = VersionGraph(versions)
      for version in versions.values where version.parents.count > 1 {
        let parents = version.parents.sorted()
        var folded = [parents[0]]
        for next in parents.dropFirst() {
          let common = graph.ancestors(ofAll: folded).intersection(graph.ancestors(of: next))
          if graph.lowest(of: common).count > 1 {
            found += 1
            break
          }
          folded.append(next)
        }
      }
    }
    return found
  }
}
