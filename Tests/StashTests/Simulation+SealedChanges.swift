import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashFiles
import StashModel
import Testing

@testable import Stash

/// The check of every sync of sealed changes (see ``SealedChanges``): before each sync the
/// seal would let run as a pass over a few records, both stores are copied twice; one copy
/// gets that pass (the stores opened for those records, as the CLI opens them), the other the
/// full pass over stores read whole, with the same clock. Both must end holding the same
/// records, tombstones, checkpoints, conflicts, diagnostics and mirror versions, and report
/// the same.
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
    var results = [PassSummary]()
    for focused in [true, false] {
      let copy = check.appendingPathComponent(focused ? "focused" : "whole").path
      try manager.createDirectory(atPath: copy, withIntermediateDirectories: true)
      for name in Self.storeFiles where manager.fileExists(atPath: device.home + "/" + name) {
        try manager.copyItem(atPath: device.home + "/" + name, toPath: copy + "/" + name)
      }
      let now = Timestamp(secondsSince1970: clock + 0.5)!
      results.append(try Self.pass(in: copy, over: focused ? changes : nil, at: now))
    }
    try? manager.removeItem(at: check)
    if results[0] != results[1] {
      problems.append(
        "a sync of the sealed changes \(changes.keys.sorted()) differs from the full sync: "
          + "\(results[0]) against \(results[1])")
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

    var description: String {
      "report \(report), rows \(rows.count), tombstones \(tombstones), checkpoints "
        + "\(checkpoints.count), conflicts \(conflicts), versions \(versions.count), "
        + "pending \(pending)"
    }
  }

  /// One pass in the device folder copy at `home`: over the changes' records, with the
  /// stores opened for them, or over everything.
  static func pass(in home: String, over changes: SealedChanges?, at now: Timestamp) throws
    -> PassSummary
  {
    let schemas = InventorySchemas.registry
    let lock = FolderLock(folder: home)
    let local = try LocalStore.open(
      folder: home, schemas: schemas, lock: lock,
      focus: changes.map { LocalStore.Focus(keys: $0.keys) })
    // As the sync opens it: focused when the local store is.
    let mirror = try MirrorStore.open(
      folder: home, schemas: schemas, lock: lock,
      focus: local.content.isComplete ? nil : changes?.keys)
    if let changes {
      // As the sync checks it: every row the changes touch is one the store holds.
      #expect(local.content.unseenRows.isDisjoint(with: changes.rows))
    }
    let report = try Reconciler(local: local, mirror: mirror, clock: { now }).reconcile(
      keys: changes?.keys)
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
      pending: versions.pending.map { "\($0)" }.sorted())
  }
}
