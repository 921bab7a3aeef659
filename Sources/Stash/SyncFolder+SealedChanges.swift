public import JSONLines
public import LocalStore
import MirrorStore
import Reconciler
public import StashModel

/// What changed in the local store since a sync that left nothing to do: the records a sync
/// of those changes must look at.
///
/// A sync after a few local edits costs what those edits cost, not what the store holds. The
/// sync seal (SyncFolder+Seal.swift) says that a full sync over the sealed stores and shared
/// folder does nothing (DESIGN invariant 4). When the mirror and the shared folder are still
/// exactly the sealed ones and the local store is the sealed file with transactions appended
/// (the same file, its sealed prefix's probe lines unchanged: ``LogPrefix``), a full pass
/// decides every record the appended transactions leave alone exactly as it did at the seal,
/// writing nothing, because each record's decision depends only on that record's rows,
/// tombstone, checkpoint, conflicts, diagnostics and mirror versions. So a pass over the
/// records those transactions touch, followed by the ordinary export, is the full sync. The
/// model checks the claim (a pass over the touched keys against a full pass, over random
/// histories), and the simulation compares every such sync with a full one.
///
/// Only row and tombstone changes qualify; anything else appended (settings, checkpoints,
/// conflicts: a resolution writes the mirror too) runs the full sync.
public struct SealedChanges: Hashable, Sendable {
  /// The records the changes touch.
  public let keys: Set<RecordKey>
  /// The rows the changes write or remove: each must be a row of one of ``keys`` (checked
  /// once the store is open, ``LocalContent/unseenRows``).
  public let rows: Set<RowID>
}

extension SyncFolder {
  /// The local changes since the sync seal in `home`, when the seal proves that a sync of
  /// those changes alone is the whole sync (see ``SealedChanges``); `nil` when a full sync
  /// must run (no seal, another format, the mirror or the shared folder changed, the local
  /// store rewritten, or a change of another kind appended).
  ///
  /// It holds the folder's lock while it compares; ``syncSealedChanges(progress:)`` compares
  /// again under the lock before it writes anything.
  ///
  /// - Throws: ``StashError`` (busy) when another process holds the folder past the timeout.
  public static func sealedChanges(
    at home: String, schemas: SchemaRegistry, lockTimeout: Double = 3,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) -> SealedChanges? {
    // Without a seal there is nothing to compare, and nothing (not even the lock) is created.
    guard SyncSeal.read(home: home, fileSystem: fileSystem) != nil else { return nil }
    let lock = FolderLock(folder: home, timeout: lockTimeout, fileSystem: fileSystem)
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    return sealedChanges(home: home, schemas: schemas, fileSystem: fileSystem)?.changes
  }

  /// The comparison itself; the caller holds the folder's lock.
  static func sealedChanges(home: String, schemas: SchemaRegistry, fileSystem: any FileSystem)
    -> (changes: SealedChanges, seal: SyncSeal)?
  {
    guard let seal = SyncSeal.read(home: home, fileSystem: fileSystem),
      let prefix = seal.localPrefix, seal.storeMatches(1, home: home, fileSystem: fileSystem),
      seal.sharedFolderMatches(fileSystem: fileSystem)
    else { return nil }
    let opened: (log: Log, state: (LogHeader, [Transaction]), tail: TailReport?)?
    do {
      opened = try Log.open(
        at: home + "/" + LocalStore.fileName, resuming: prefix, format: LocalContent.format,
        supportedVersion: LocalContent.version, recoverTail: false, fileSystem: fileSystem,
        content: { header, _, transactions in (header, transactions) }, apply: { _, _ in })
    } catch {
      return nil
    }
    // What follows the last commit is set aside by a full open, which says so.
    guard let opened, opened.tail == nil else { return nil }
    let decoder = LocalContent(header: opened.state.0, context: schemas)
    var keys = Set<RecordKey>()
    var rows = Set<RowID>()
    for transaction in opened.state.1 {
      for operation in transaction.operations {
        guard let change = try? decoder.change(from: operation.object, line: operation.line)
        else { return nil }
        switch change {
        case .putRow(let row, let record, _):
          keys.insert(record.key)
          rows.insert(row)
        case .removeRow(let row):
          rows.insert(row)
        case .putTombstone(let tombstone):
          keys.insert(tombstone.key)
        case .removeTombstone(let key):
          keys.insert(key)
        default:
          return nil
        }
      }
    }
    return (SealedChanges(keys: keys, rows: rows), seal)
  }

  /// Runs a sync of the sealed changes this folder was opened for
  /// (``Options/sealedChanges``): the ordinary import (which finds nothing), a pass over
  /// those records only, the ordinary export, and a new seal.
  ///
  /// - Returns: What happened, or `nil`, having written nothing, when the full sync must run
  ///   instead: the seal no longer holds under the lock (another process wrote, the shared
  ///   folder changed), the changes are not among those the folder was opened for, a row they
  ///   touch is not one the folder holds, or the import finds something new.
  /// - Throws: ``StashError`` as ``sync(sealing:progress:)`` does.
  public func syncSealedChanges(
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport? {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    guard let opened = options.sealedChanges, let local else { return nil }
    do { try local.refresh() } catch { throw StashError(error) }
    let content = local.content
    guard
      let (changes, seal) = Self.sealedChanges(
        home: home, schemas: schemas, fileSystem: fileSystem),
      changes.keys.isSubset(of: opened.keys), changes.rows.isDisjoint(with: content.unseenRows)
    else { return nil }
    // A store read whole (no usable index) knows every record: the ordinary full pass then.
    let keys: Set<RecordKey>? = content.isComplete ? nil : changes.keys
    let (mirror, cloud) = try syncParts()
    guard content.checkpointMirror == mirror.storeID else { return nil }  // a pass would rebind
    let reconciler = try makeReconciler(mirror)
    let passes = PassReports(keys: keys)
    let coordinator = SyncCoordinator(mirrorStoreID: mirror.storeID) {
      request throws(ReconcileError) in
      try passes.run(request, with: reconciler)
    }
    let report = try run(
      mirror: mirror, cloud: cloud, coordinator: coordinator, passes: passes, progress: progress,
      onlyIfNothingNew: true)
    if report.stoppedBeforeImport { return nil }
    updateSeal(
      after: report, mirror: mirror, cloud: cloud, continuing: keys == nil ? nil : seal)
    return report
  }
}
