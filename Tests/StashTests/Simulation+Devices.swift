import Foundation
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport

/// Two processes syncing one device at once, and a device folder copied to a new machine.
extension Simulation {
  /// Two processes of one device run `stash sync` at the same moment (the app and the CLI, or
  /// a person pressing twice): one critical section, so the second waits for the first (or
  /// gives up as busy). Neither may fail otherwise, and what they leave must keep every
  /// invariant.
  ///
  /// Which of the two takes the lock first is up to the threads, so this step is the one
  /// place a seed's replay may take another turn.
  mutating func syncInParallel(_ device: SimulatedDevice) throws {
    guard device.online else { return try sync(device) }
    let first = try open(device)
    let second = try restart(device)
    let results = LockedBox<[Result<SyncRunReport, StashError>]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      let folder = index == 0 ? first : second
      let result = Result { () throws(StashError) in try folder.sync() }
      results.withLock { $0.append(result) }
    }
    totals.parallelSyncs += 1
    for case .failure(let error) in results.withLock({ $0 }) where error.category != .busy {
      problems.append("parallel syncs: one failed with \(error)")
    }
    try restart(device)
    checkStores(try open(device))
    checkHostileEffects(try open(device))
  }

  /// A device folder copied to a second machine (a backup restored while the original lives
  /// on), as the README's "Syncing two devices" describes it: the copy was taken right after
  /// the original synced; the original goes on and exports; the copy, offline, is used; its
  /// first sync notices the other copy and stops exporting; `new-identity` gives it its own
  /// id, and from then on it is one more device of the zone.
  mutating func cloneDevice() throws {
    let original = devices.randomElement(using: &random)!
    original.online = true
    try sync(original)
    let index = devices.count
    let copy = SimulatedDevice(
      home: folder.appendingPathComponent("device-\(index)").path,
      view: folder.appendingPathComponent("cloud-view-\(index)"))
    let manager = FileManager.default
    try manager.copyItem(atPath: original.home, toPath: copy.home)
    try deliver(from: original.view, to: copy.view)
    try hostile?.replay(into: copy.view)
    copy.isUnnoticedClone = true
    devices.append(copy)
    totals.clones += 1
    try open(copy).enableSync(cloud: copy.view.path)

    try add(on: original)
    try sync(original)
    try deliver(from: original.view, to: copy.view)
    for _ in 0..<Int.random(in: 1...4, using: &random) {
      switch Int.random(in: 0..<4, using: &random) {
      case 0: try add(on: copy)
      case 1: try recount(on: copy)
      default: try move(on: copy)
      }
    }
    let folder = try open(copy)
    let noticed = try folder.sync()
    guard noticed.exportStopped != nil else {
      problems.append("clone: the copy's first sync did not notice the original")
      return
    }
    let old = try folder.deviceID.unwrapped("the copy's device id")
    let before = held(by: folder)
    let renamed = try folder.takeNewIdentity()
    let renewed = try restart(copy)
    // Re-keyed rows replace what the copy held (and its unexported versions leave the
    // mirror): what it holds now is what must not be lost from here on.
    let after = held(by: renewed)
    replaced.formUnion(before.subtracting(after))
    written.formUnion(after.subtracting(before))
    // The copy's unexported moves now count under its new id (`IdentityChange`): the part of
    // the shared id's tally no remaining version holds moved over.
    for move in copy.movesBeforeNewIdentity {
      let made = ledger.moves[move]
      guard
        case .counter(let counter)? = renewed.content?.row(for: made.key)?.record[
          field: "quantity"],
        counter.epoch == made.epoch, counter.base == made.base
      else { continue }
      let held = (made.isRestock ? counter.increments : counter.decrements)[old] ?? 0
      if made.tally > held { ledger.reassign(move, to: renamed.current, tally: made.tally - held) }
    }
    copy.isUnnoticedClone = false
    copy.movesBeforeNewIdentity = []
  }

  /// Every snapshot hash `folder` keeps: live rows, conflict sides and mirror versions.
  func held(by folder: DeviceFolder) -> Set<SnapshotHash> {
    var kept = Set<SnapshotHash>()
    if let local = folder.content {
      kept.formUnion(local.rows.values.map(\.hash))
      kept.formUnion(local.conflicts.values.flatMap { $0.sides.compactMap(\.snapshot?.hash) })
    }
    let versions = folder.mirror.store?.content.versions.values.flatMap(\.values) ?? []
    return kept.union(versions.map(\.hash))
  }

  /// Copies what `to` lacks of `from`'s files (honest ones: the hostile writer's own sync
  /// tool puts its files everywhere).
  func deliver(from: URL, to: URL) throws {
    let manager = FileManager.default
    for relative in try files(in: from) {
      let target = to.appendingPathComponent(relative)
      if manager.fileExists(atPath: target.path) { continue }
      try manager.createDirectory(
        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try manager.copyItem(at: from.appendingPathComponent(relative), to: target)
    }
  }
}

extension Optional {
  /// The value, or a test failure naming what was missing.
  fileprivate func unwrapped(_ what: String) throws -> Wrapped {
    guard let self else { throw ModelError("\(what) is missing") }
    return self
  }
}
