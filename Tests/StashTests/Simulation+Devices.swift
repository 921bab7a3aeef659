import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashBase
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
      let result = Result { () throws(StashError) in try folder.folder.sync() }
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

  /// A device folder copied to a second machine (a backup restored there, or the folder
  /// copied now) while the original lives on, at any moment: the copy is another
  /// incarnation, which takes a device identity of its own with its first write, so the moves
  /// made on the copy and on the original all count, whatever the timing (DESIGN, "Tallies
  /// belong to an incarnation"). Nothing is asked of anyone.
  mutating func cloneDevice() throws {
    guard devices.count < 6 else { return }
    let original = devices.randomElement(using: &random)!
    let backups = self.backups.filter { $0.device === original }
    let source = backups.randomElement(using: &random).map(\.path) ?? original.home
    let index = devices.count
    let copy = SimulatedDevice(
      home: folder.appendingPathComponent("device-\(index)").path,
      view: folder.appendingPathComponent("cloud-view-\(index)"))
    try FileManager.default.copyItem(atPath: source, toPath: copy.home)
    try deliver(from: original.view, to: copy.view)
    try hostile?.replay(into: copy.view)
    devices.append(copy)
    totals.clones += 1
    if source != original.home { totals.restoredCopies += 1 }
    // A copy or a backup holds what its source held: nothing of it may be lost.
    let folder = try restart(copy)
    written.formUnion(held(by: folder).subtracting(replaced))
    try folder.folder.enableSync(cloud: copy.view.path)  // its first write: its own identity
    try restart(copy)
    try rejoinIfNeeded(copy)
  }

  /// A person's backup tool copies a device folder, at any moment.
  mutating func backUp(_ device: SimulatedDevice) throws {
    let path = folder.appendingPathComponent("backup-\(backups.count)").path
    // As a backup tool reads a folder another process may be writing: under its lock, so
    // that the copy is a state the stores were in.
    let lock = FolderLock(folder: device.home, timeout: 10)
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    try FileManager.default.copyItem(atPath: device.home, toPath: path)
    backups.append((device, path))
  }

  /// The machine of a device is replaced: after it synced what it had, its folder is restored
  /// from an older backup in the same place. The restored folder is another incarnation too:
  /// what the lost machine did after the backup and sent counts with what the new one does.
  mutating func restore() throws {
    guard
      let backup = backups.filter({ backup in devices.contains { $0 === backup.device } })
        .randomElement(using: &random)
    else { return }
    let device = backup.device
    device.online = true
    // It sends what it has (and nobody decides anything meanwhile, which would make a change
    // that leaves only with the next sync): what it never sent is lost with the machine.
    let deciding = quiescing
    quiescing = true
    try sync(device)
    quiescing = deciding
    device.process = nil
    let manager = FileManager.default
    try manager.removeItem(atPath: device.home)
    try manager.copyItem(atPath: backup.path, toPath: device.home)
    totals.restores += 1
    let folder = try restart(device)
    written.formUnion(held(by: folder).subtracting(replaced))
    try rejoinIfNeeded(device)
    // It reads back, from the shared folder, what the lost machine sent after the backup.
    try sync(device)
  }

  /// Every snapshot hash `folder` keeps: live rows, conflict sides and mirror versions.
  func held(by folder: DeviceFolder) -> Set<SnapshotHash> {
    var kept = Set<SnapshotHash>()
    if let local = folder.folder.content {
      kept.formUnion(local.rows.values.map(\.hash))
      kept.formUnion(local.conflicts.values.flatMap { $0.sides.compactMap(\.snapshot?.hash) })
    }
    let versions = folder.folder.mirror.store?.content.versions.values.flatMap(\.values) ?? []
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
