import LocalStore
import MirrorStore
import StashBase
import StashModel

/// What giving a cloned device folder its own identity changes in its two stores, so that
/// "both copies sync without loss" holds for stock moves too.
///
/// A copy of a device folder tallies its stock moves under the same device id as the original:
/// where both copies moved, a merge would keep only the larger tally and lose moves. So:
/// - this copy's versions that were never exported (pending) are dropped from the mirror:
///   nobody saw them, and the local store holds everything they copied;
/// - in every local counter, the part of the old id's tally that no remaining version holds
///   (moves this copy made and never exported) is moved to the new id, so the two copies'
///   moves add up;
/// - a checkpoint that named a dropped version names the last state before it (or none, which
///   the decision table treats as "never agreed").
///
/// Moves that both copies had already exported under the shared id before either noticed the
/// other cannot be told apart any more; that window is documented in the README.
struct IdentityChange {
  let old: DeviceID
  let new: DeviceID
  /// The mirror's versions that stay (all but this copy's unexported ones).
  private let remaining: [RecordKey: [MirrorVersion]]
  /// Snapshot hashes of the dropped versions, by record, with the ids of what they named.
  private let dropped: [RecordKey: [VersionID: MirrorVersion]]
  /// Whether the mirror was rewritten already, by a run interrupted before its second rewrite:
  /// the versions it dropped are then gone, and known only by their absence.
  private let finishing: Bool

  /// The change for a mirror about to be rewritten (`droppingPending`), or one rewritten
  /// already (a new identity interrupted between its two rewrites, finishing now: the pending
  /// versions are then the exported ones marked for export again, and all stay).
  init(mirror: MirrorContent, old: DeviceID, new: DeviceID, droppingPending: Bool = true) {
    self.old = old
    self.new = new
    var remaining = [RecordKey: [MirrorVersion]]()
    var dropped = [RecordKey: [VersionID: MirrorVersion]]()
    for (key, versions) in mirror.versions {
      for version in versions.values {
        if droppingPending && mirror.pending.contains(version.ref) {
          dropped[key, default: [:]][version.id] = version
        } else {
          remaining[key, default: []].append(version)
        }
      }
    }
    self.remaining = remaining
    self.dropped = dropped
    self.finishing = !droppingPending
  }

  /// Whether the mirror keeps `version`.
  func keeps(_ version: MirrorVersion) -> Bool { dropped[version.key]?[version.id] == nil }

  /// The local store's changes, for its rewrite: counters re-keyed, checkpoints mended.
  func localChanges(_ changes: [LocalChange]) -> [LocalChange] {
    changes.compactMap { change in
      switch change {
      case .putRow(let row, let record, _):
        guard let rekeyed = reKeyed(record) else { return change }
        return .putRow(row, rekeyed, rekeyed.snapshotHash)
      case .putCheckpoint(let key, let checkpoint)
      where finishing && !(remaining[key] ?? []).contains { $0.hash == checkpoint.hash }:
        // It named a version the interrupted run dropped (this copy's, never exported): the
        // state before it is gone with it, so nothing counts as agreed; the next pass keeps
        // both sides if they differ, instead of taking the mirror's over the local row.
        return .removeCheckpoint(key)
      case .putCheckpoint(let key, let checkpoint):
        guard let dropped = dropped[key],
          dropped.values.contains(where: { $0.hash == checkpoint.hash }),
          !(remaining[key] ?? []).contains(where: { $0.hash == checkpoint.hash })
        else { return change }
        return lastStateBefore(checkpoint.hash, of: key).map { .putCheckpoint(key, $0) }
          ?? .removeCheckpoint(key)
      default:
        return change
      }
    }
  }

  /// `record` with the moves under the old id that no remaining version holds moved to the new
  /// id, or `nil` when there are none.
  func reKeyed(_ record: Record) -> Record? {
    var changed = record
    for index in record.schema.counterIndices {
      guard case .counter(let counter) = record.values[index] else { continue }
      let held = (remaining[record.key] ?? []).compactMap { version -> Counter? in
        guard case .counter(let other)? = version.snapshot.record?.values[index],
          other.isSameEpoch(as: counter)
        else { return nil }
        return other
      }
      func split(_ tallies: [DeviceID: Int64], _ exported: [Int64]) -> [DeviceID: Int64]? {
        let mine = tallies[old] ?? 0
        let kept = min(mine, exported.max() ?? 0)
        guard mine > kept else { return nil }
        var moved = tallies
        moved[old] = kept
        moved[new, default: 0] += mine - kept
        return moved
      }
      let increments = split(counter.increments, held.map { $0.increments[old] ?? 0 })
      let decrements = split(counter.decrements, held.map { $0.decrements[old] ?? 0 })
      guard increments != nil || decrements != nil else { continue }
      let rekeyed = Counter(
        base: counter.base, epoch: counter.epoch, increments: increments ?? counter.increments,
        decrements: decrements ?? counter.decrements)
      try? changed.set(record.schema.fields[index].name, to: .counter(rekeyed))
    }
    return changed == record ? nil : changed
  }

  /// The snapshot every nearest remaining ancestor of the dropped versions holding `hash`
  /// holds, when there is exactly one.
  private func lastStateBefore(_ hash: SnapshotHash, of key: RecordKey) -> Checkpoint? {
    let kept = Dictionary(
      (remaining[key] ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var queue = (dropped[key] ?? [:]).values.filter { $0.hash == hash }.flatMap(\.parents)
    var seen = Set<VersionID>()
    var found = Set<Snapshot>()
    while let id = queue.popLast() {
      guard seen.insert(id).inserted else { continue }
      if let version = kept[id] {
        found.insert(version.snapshot)
      } else if let version = dropped[key]?[id] {
        queue.append(contentsOf: version.parents)
      }
    }
    guard found.count == 1, let only = found.first else { return nil }
    return Checkpoint(only)
  }
}
