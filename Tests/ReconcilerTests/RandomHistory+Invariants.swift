import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashModel
import StashTestSupport

/// The invariants a random history checks after every pass (DESIGN.md's 1-4 and 6, and the
/// stores' own).
extension History {
  mutating func checkStores(_ device: Device) {
    problems += device.stores.local.content.checkInvariants()
    problems += device.stores.mirror.content.checkInvariants()
  }

  /// 2 and 3 after a full pass: every record is in agreement, has an open conflict (a row
  /// live on one side and deleted or absent on the other never passes silently), or waits for
  /// a version its leaves name that has not arrived (DESIGN rule 3; `quiet` when everything
  /// was delivered, and nothing may wait).
  mutating func checkAgreementOrConflict(_ device: Device, quiet: Bool = false) {
    let local = device.stores.local.content
    let mirror = device.stores.mirror.content
    for key in local.keys.union(mirror.keys) {
      guard local.openConflicts(for: key).isEmpty, local.rows(for: key).count <= 1 else { continue }
      let side = mirror.side(for: key)
      let here = local.row(for: key)?.hash
      let winner = side.winner
      let agreed: Bool
      if side.isConcurrent {
        let graph = VersionGraph(mirror.versions[key] ?? [:])
        agreed = !quiet && !graph.hasEveryParent(of: side.leafIDs)
      } else if let here {
        agreed = winner?.hash == here
      } else {
        agreed = winner == nil || winner!.snapshot.isTombstone
      }
      if !agreed { problems.append("\(key) neither agrees nor has an open conflict") }
    }
  }

  /// 3: a row that vanished without a tombstone is not recreated here, and no tombstone exists
  /// anywhere for a record nobody deleted on purpose.
  mutating func checkAbsence(_ device: Device) {
    for key in device.dropped.withLock({ $0 })
    where device.stores.local.content.row(for: key) != nil {
      problems.append("\(key) vanished here and came back")
    }
    for other in devices {
      for (key, versions) in other.stores.mirror.content.versions
      where versions.values.contains(where: \.snapshot.isTombstone)
        && !deletedOnPurpose.contains(key)
      {
        problems.append("\(key) has a tombstone though nobody deleted it")
      }
    }
  }

  /// 1: every version a person wrote (and did not replace themselves) is live somewhere, in a
  /// mirror, or inside a conflict.
  mutating func checkNoSilentLoss() {
    var kept = Set<SnapshotHash>()
    for device in devices {
      let local = device.stores.local.content
      kept.formUnion(local.rows.values.map(\.hash))
      kept.formUnion(local.conflicts.values.flatMap { $0.sides.compactMap(\.snapshot?.hash) })
      kept.formUnion(device.stores.mirror.content.versions.values.flatMap(\.values).map(\.hash))
    }
    let lost = written.subtracting(replacedByPerson).subtracting(kept)
    if !lost.isEmpty { problems.append("lost \(lost.count) versions: \(lost.map(\.short))") }
  }
}
