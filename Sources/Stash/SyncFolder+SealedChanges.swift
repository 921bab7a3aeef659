import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashFiles
import StashModel

/// What changed in the local store since a sync that left nothing to do: the records a sync
/// of those changes must look at.
///
/// A sync after a few local edits, or after another device's few edits, costs what those
/// edits cost, not what the store holds. The sync seal (SyncFolder+Seal.swift) says that a
/// full sync over the sealed stores and shared folder does nothing (DESIGN invariant 4). When
/// the mirror is still exactly the sealed one, the shared folder the sealed one or that with
/// files added (``SyncSeal/sharedFolderOnlyGained(home:fileSystem:)``: segments and photos
/// other devices published), and the local store is the sealed file with transactions
/// appended (the same file, its sealed prefix's probe lines unchanged: ``LogPrefix``), a full
/// pass decides every record that neither the appended transactions nor the import touch
/// exactly as it did at the seal, writing nothing, because each record's decision depends only
/// on that record's rows, tombstone, checkpoint, conflicts, diagnostics and mirror versions.
/// So the import, a pass over the records the transactions touch and those the import merged
/// versions of, and the ordinary export, are the full sync. The stores are opened for those
/// records only: the import into a mirror opened for a few records writes nothing when the
/// new segments name others, and the sync opens the stores again for those too
/// (``SyncFolder/sync(at:registry:options:progress:)``). The model checks the claim (a pass
/// over the touched and imported keys against a full pass, over random histories: see the
/// README's "Speed"), and the simulation compares every such sync with a full one.
///
/// Only row and tombstone changes qualify; anything else appended (settings, checkpoints,
/// conflicts: a resolution writes the mirror too) runs the full sync.
struct SealedChanges: Hashable, Sendable {
  /// The records the changes touch.
  let keys: Set<RecordKey>
  /// The rows the changes write or remove: each must be a row of one of ``keys`` (checked
  /// once the store is open, ``LocalContent/unseenRows``).
  let rows: Set<RowID>
}

extension SyncFolder {
  /// The local changes since the sync state `seal`, when it proves that a sync of those
  /// changes alone is the whole sync (see ``SealedChanges``); `nil` when a full sync must run
  /// (no local prefix, the mirror or the shared folder changed, the local store rewritten, or
  /// a change of another kind appended). The caller holds the folder's lock.
  static func sealedChanges(
    home: String, schemas: SchemaRegistry, seal: SyncSeal, fileSystem: any FileSystem
  ) -> SealedChanges? {
    guard let prefix = seal.localPrefix,
      seal.storeMatch(1, home: home, fileSystem: fileSystem) != nil,
      seal.sharedFolderOnlyGained(home: home, fileSystem: fileSystem)
    else { return nil }
    let read: (changes: [LocalChange], tail: TailReport?)?
    do {
      read = try LogStore<LocalContent>.changes(
        path: home + "/" + LocalStore.fileName, after: prefix, context: schemas,
        fileSystem: fileSystem)
    } catch {
      return nil
    }
    // What follows the last commit is set aside by a full open, which says so.
    guard let read, read.tail == nil else { return nil }
    var keys = Set<RecordKey>()
    var rows = Set<RowID>()
    for change in read.changes {
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
    return SealedChanges(keys: keys, rows: rows)
  }

  /// Runs a sync of the changes made here since the sync state `seal` (the caller holds the
  /// folder's lock): the ordinary import (of what other devices added to the shared folder
  /// since), a pass over the records changed here and those the import merged, the ordinary
  /// export, and a new sync state.
  ///
  /// - Returns: What happened, or `nil`, having written nothing, when it cannot run as a sync
  ///   of sealed changes: the state does not prove it (`known`: what it proved under the same
  ///   lock hold), the changes are not among the records the folder was opened for, a row
  ///   they touch is not one the folder holds, the local store is bound to another mirror, or
  ///   the import needs records the stores were not opened for (``SyncRunReport/recordsToLoad``
  ///   in `needing` names them: empty when only the full sync will do).
  /// - Throws: ``StashError`` as ``sync(progress:)`` does.
  func syncSealedChanges(
    seal: SyncSeal, changes known: SealedChanges? = nil, session: SyncSession? = nil,
    needing: inout Set<RecordKey>, progress: (_ read: Int, _ total: Int) -> Void
  ) throws(StashError) -> SyncRunReport? {
    needing = []
    guard let local else { return nil }
    do { try local.refresh() } catch { throw StashError(error) }
    let content = local.content
    guard
      let changes = known
        ?? Self.sealedChanges(home: home, schemas: schemas, seal: seal, fileSystem: fileSystem),
      options.syncKeys.map(changes.keys.isSubset(of:)) ?? true,
      changes.rows.isDisjoint(with: content.unseenRows)
    else { return nil }
    let (mirror, cloud) = try syncParts()
    guard content.checkpointMirror == mirror.storeID else { return nil }  // a pass would rebind
    // Stores opened for too few records do nothing before they are opened for more (not even
    // read the clock).
    if let lacking = cloud.recordsToLoad(
      into: mirror, deviceBlobs: blobs, within: content.isComplete ? nil : options.syncKeys)
    {
      needing = lacking
      return nil
    }
    let (coordinator, passes) = try syncRunners(mirror, session: session, keys: changes.keys)
    let report = try run(
      mirror: mirror, cloud: cloud, coordinator: coordinator, passes: passes, progress: progress,
      continuing: seal)
    if report.stoppedBeforeImport {
      needing = report.recordsToLoad
      return nil
    }
    var chosen = report
    chosen.choice = .sealedChanges(
      localFocused: !content.isComplete, mirrorFocused: !mirror.content.isComplete)
    return chosen
  }
}
