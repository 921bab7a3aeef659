import CloudFolder
import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashFiles
import StashModel
import Testing

@testable import Stash

/// The check of every sync of sealed changes (see ``SealedChanges``): before each sync the
/// seal would let run over a few records, both stores are copied twice; one copy gets that
/// sync's import and pass (the stores opened for the records changed here, and again for
/// those the shared folder's new segments name when the import asks, as the CLI opens them),
/// the other the full import and pass over stores read whole, with the same clock. Both must
/// end holding the same records, tombstones, checkpoints, conflicts, diagnostics, mirror
/// versions and segments read, and report the same.
extension Simulation {
  /// The files of a device folder a pass reads.
  static let storeFiles = [
    LocalStore.fileName, LocalStore.fileName + ".index", MirrorStore.fileName,
    MirrorStore.fileName + ".index",
  ]

  /// A sync as the CLI runs it: a new process opens the folder as cheaply as the sync state
  /// allows. When the state allows a sync of sealed changes, that pass is first checked
  /// against the full pass on copies.
  mutating func syncAsTheCLI(_ device: SimulatedDevice) throws -> SyncRunReport {
    if let changes = try Self.sealedChanges(at: device.home) {
      try checkSealedChanges(device, changes)
    }
    let report = try SyncFolder.sync(
      at: device.home, registry: InventorySchemas.registry, options: processOptions())
    if case .sealedChanges(let localFocused, let mirrorFocused) = report.choice {
      totals.sealedChangeSyncs += 1
      if report.versionsImported > 0 { totals.sealedImports += 1 }
      if localFocused { totals.focusedSealedSyncs += 1 }
      if mirrorFocused { totals.focusedMirrorSyncs += 1 }
    }
    return report
  }

  /// The local changes the sync state in `home` allows a sync of sealed changes over, as the
  /// sync reads them under the folder's lock; `nil` when it allows none.
  static func sealedChanges(at home: String) throws -> SealedChanges? {
    guard let seal = SyncSeal.read(home: home, fileSystem: POSIXFileSystem()) else { return nil }
    let lock = FolderLock(folder: home)
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    return SyncFolder.sealedChanges(
      home: home, schemas: InventorySchemas.registry, seal: seal, fileSystem: POSIXFileSystem())
  }

  mutating func checkSealedChanges(_ device: SimulatedDevice, _ changes: SealedChanges) throws {
    totals.sealedChangeChecks += 1
    let manager = FileManager.default
    let check = folder.appendingPathComponent("sealed-check")
    try? manager.removeItem(at: check)
    let cloud = CloudFolder(root: device.view.path)
    let now = Timestamp(secondsSince1970: clock + 0.5)!
    // The full sync, on copies of the stores.
    let whole = check.appendingPathComponent("whole").path
    try manager.createDirectory(atPath: whole, withIntermediateDirectories: true)
    for name in Self.storeFiles where manager.fileExists(atPath: device.home + "/" + name) {
      try manager.copyItem(atPath: device.home + "/" + name, toPath: whole + "/" + name)
    }
    let full = try Self.pass(in: whole, over: nil, cloud: cloud, at: now)
    try? manager.removeItem(at: check)
    // The focused one, on the device's own files: a copy is another file (another inode), whose
    // indexes would not be used, and the check would compare two whole syncs. The files are
    // then put back byte for byte, in place (the same inodes, so the indexes still hold).
    let saved = Self.storeFiles.map {
      try? Data(contentsOf: URL(fileURLWithPath: device.home + "/" + $0))
    }
    defer { Self.restore(saved, in: device.home) }
    let focusedResult = try Self.pass(in: device.home, over: changes, cloud: cloud, at: now)
    if focusedResult?.focused == true { totals.focusedChecks += 1 }
    let results = [focusedResult, full]
    // `nil`: the import needs the whole mirror (another zone's segments), as the sync finds.
    guard results[0] != nil else { return }
    if results[0]!.imported > 0 { totals.sealedImportChecks += 1 }
    if results[0] != results[1] {
      problems.append(
        "a sync of the sealed changes \(changes.keys.sorted()) differs from the full sync: "
          + "\(String(describing: results[0])) against \(String(describing: results[1]))")
    }
  }

  /// Writes `saved` (``storeFiles``' bytes, `nil` for a file that did not exist) back into the
  /// files of `home`, in place.
  static func restore(_ saved: [Data?], in home: String) {
    for (name, bytes) in zip(storeFiles, saved) {
      let path = home + "/" + name
      guard let bytes else {
        try? FileManager.default.removeItem(atPath: path)
        continue
      }
      guard let handle = FileHandle(forWritingAtPath: path) else {
        _ = FileManager.default.createFile(atPath: path, contents: bytes)
        continue
      }
      try? handle.truncate(atOffset: 0)
      try? handle.write(contentsOf: bytes)
      try? handle.close()
    }
  }

  /// What a pass left, in comparable values.
  struct PassSummary: Equatable, CustomStringConvertible {
    var report: [Int]
    var rows: [String]
    var tombstones: [String]
    var checkpoints: [String]
    var conflicts: [String]
    var diagnostics: [String]
    var versions: [String]
    var pending: [String]
    var read: [String]
    /// Versions the import brought (compared through ``versions``).
    var imported: Int
    /// Whether the local store was opened from its index for a few records (not compared).
    var focused = false

    static func == (a: Self, b: Self) -> Bool {
      (a.report, a.rows, a.tombstones, a.checkpoints, a.conflicts, a.diagnostics)
        == (b.report, b.rows, b.tombstones, b.checkpoints, b.conflicts, b.diagnostics)
        && (a.versions, a.pending, a.read) == (b.versions, b.pending, b.read)
    }

    var description: String {
      "report \(report), rows \(rows.count), tombstones \(tombstones), checkpoints "
        + "\(checkpoints.count), conflicts \(conflicts), versions \(versions.count), "
        + "pending \(pending), segments read \(read.count)"
    }
  }

  /// One import from `cloud` and one pass in the device folder copy at `home`: over the
  /// changes' records and those the import merged, with the stores opened for them (and
  /// opened again for more when the import asks, as the sync does), or over everything;
  /// `nil` when the import needs the whole mirror.
  static func pass(
    in home: String, over changes: SealedChanges?, cloud: CloudFolder, at now: Timestamp
  ) throws -> PassSummary? {
    let schemas = InventorySchemas.registry
    let lock = FolderLock(folder: home)
    var keys = changes?.keys
    var opened: (LocalStore, MirrorStore, merged: Set<RecordKey>, imported: Int)?
    for _ in 0..<2 where opened == nil {
      let local = try LocalStore.open(
        folder: home, schemas: schemas, lock: lock, focus: keys.map { LocalStore.Focus(keys: $0) })
      // As the sync opens it: focused when the local store is.
      let mirror = try MirrorStore.open(
        folder: home, schemas: schemas, lock: lock,
        focus: local.content.isComplete ? nil : keys)
      let imported = try cloud.importNew(
        into: mirror, deviceBlobs: BlobStore(deviceFolder: home, fileSystem: POSIXFileSystem()),
        at: now, within: local.content.isComplete ? nil : keys)
      if !imported.heldBack {
        opened = (local, mirror, imported.recordsMerged, imported.versionsImported)
      } else if let wider = keys, !imported.recordsToLoad.isEmpty {
        keys = wider.union(imported.recordsToLoad)
      } else {
        return nil
      }
    }
    guard let (local, mirror, merged, importedCount) = opened else { return nil }
    if let changes {
      // As the sync checks it: every row the changes touch is one the store holds.
      #expect(local.content.unseenRows.isDisjoint(with: changes.rows))
    }
    let report = try Reconciler(local: local, mirror: mirror, clock: { now }).reconcile(
      keys: changes.map { $0.keys.union(merged) })
    // Read back whole, as the next command would.
    let content = try LocalStore.open(folder: home, schemas: schemas, lock: lock).content
    let versions = try MirrorStore.open(folder: home, schemas: schemas, lock: lock).content
    return PassSummary(
      report: [
        report.appliedLocally, report.copiedToMirror, report.newConflicts.count,
        report.settledConflicts, report.merged, report.duplicates,
      ],
      rows: content.rows.values.map { "\($0.row) \($0.record.key) \($0.hash)" }.sorted(),
      tombstones: content.tombstones.values.map { "\($0.key) \($0.hash)" }.sorted(),
      checkpoints: content.checkpoints.map { "\($0.key) \($0.value)" }.sorted(),
      conflicts: content.conflicts.values.map { "\($0.id) \($0.state)" }.sorted(),
      diagnostics: content.diagnostics.values.map { "\($0.key) \($0.rows)" }.sorted(),
      versions: versions.versions.values.flatMap { $0.values.map { "\($0.ref)" } }.sorted(),
      pending: versions.pending.map { "\($0)" }.sorted(), read: versions.readSegments.sorted(),
      imported: importedCount, focused: !local.content.isComplete)
  }
}
