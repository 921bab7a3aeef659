import Foundation
import LocalStore
import MirrorStore
import Reconciler
import Stash
import StashBase
import StashModel
import StashTestSupport

extension Simulation {
  // MARK: Invariants

  mutating func checkStores(_ folder: DeviceFolder) {
    problems += folder.folder.content?.checkInvariants() ?? []
    problems += folder.folder.mirror.store?.content.checkInvariants() ?? []
    for other in devices {
      guard let mirror = other.process?.folder.mirror.store?.content else { continue }
      for (key, versions) in mirror.versions
      where versions.values.contains(where: \.snapshot.isTombstone)
        && !deletedOnPurpose.contains(key)
      {
        problems.append("3: \(key) has a tombstone though nobody deleted it")
      }
    }
  }

  /// 2 and 3 after a pass: every record agrees with the mirror, has an open conflict, or
  /// (while segments are still arriving) waits for a version its leaves name (rule 3).
  mutating func checkAgreementOrConflict(_ folder: DeviceFolder) {
    guard let local = folder.folder.content, let mirror = folder.folder.mirror.store?.content else {
      return
    }
    for key in local.keys.union(mirror.keys) {
      guard local.openConflicts(for: key).isEmpty, local.rows(for: key).count <= 1 else { continue }
      let side = mirror.side(for: key)
      let agreed: Bool
      if side.isConcurrent {
        let graph = VersionGraph(mirror.versions[key] ?? [:])
        agreed = !quiescing && !graph.hasEveryParent(of: side.leafIDs)
      } else if let here = local.row(for: key)?.hash {
        agreed = side.winner?.hash == here
      } else {
        agreed = side.winner == nil || side.winner!.snapshot.isTombstone
      }
      if !agreed { problems.append("2: \(key) neither agrees nor has an open conflict") }
    }
  }

  /// 1: every version a person wrote (and did not replace) is live, in a mirror, or in a
  /// conflict somewhere.
  mutating func checkNoSilentLoss() {
    var kept = Set<SnapshotHash>()
    for device in devices {
      guard let folder = device.process else { continue }
      kept.formUnion(held(by: folder))
    }
    let lost = written.subtracting(replaced).subtracting(kept)
    if !lost.isEmpty { problems.append("1: lost \(lost.count) versions: \(lost.map(\.short))") }
  }
}
