import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
import StashModel

/// The derived files of a device folder, in one list: what each is, what it is derived from,
/// and what writes it. Every one is a ``DerivedFile`` (one container, one binding to its
/// source, one read that says why a file was ignored, one write without fsync), ignored and
/// rebuilt when it fails a check; Fixtures/README.md section 8 has them all.
enum DerivedFiles {
  /// One derived file.
  struct Entry: Sendable {
    /// Its name in the device folder.
    let fileName: String
    /// Its kind: tag and format version.
    let kind: DerivedFile
  }

  /// Every derived file: the local index (written by saves, by a sync and by a query that
  /// found it unusable, from the local store; bound to its id, its log prefix and its
  /// schemas' indexed fields), which carries the digest's section (written by
  /// a sync, carried forward by saves; bound to the store's id only), the mirror's index
  /// (written by a sync; bound to the mirror's id and log prefix) and the sync state (written
  /// by a sync; bound to the fingerprint of both stores and the shared folder). The derived
  /// files of earlier releases are ``SyncState/predecessors``.
  static let all = [
    Entry(fileName: LocalStore.fileName + ".index", kind: LocalStore.indexKind),
    Entry(fileName: MirrorStore.fileName + ".index", kind: MirrorStore.indexKind),
    Entry(fileName: SyncState.fileName, kind: SyncState.kind),
  ]
}

extension SyncFolder {
  /// The one place a sync refreshes the derived files (``DerivedFiles``): under the folder's
  /// lock, once the run's saves are done, so that each describes the stores as the run left
  /// them.
  ///
  /// - Parameters:
  ///   - previous: The seal the run started from, when it proved the stores are that seal's
  ///     files with lines appended (the new seal's CRC-32s then go on from it).
  ///   - finishing: Finishes what the folder type derives from the local store (the
  ///     inventory's digest), started on another core once the pass was done.
  func refreshDerivedFiles(
    after report: SyncRunReport, mirror: MirrorStore, cloud: CloudFolder,
    continuing previous: SyncSeal?, finishing: (() -> Void)?
  ) {
    // cloud.store.index: a first sync's export saves would each leave one written earlier
    // behind; a focused or small mirror writes nothing.
    mirror.maintainIndex()
    // default.store.index: the one a pass's save left building on another core is the
    // newest (the export never writes the store); without one, one the run found missing
    // or ignored is built now. Either is sealed with the digest and status sections
    // computed during the export and written once; else those are written into the index
    // on disk.
    if local?.hasDeferredIndex == false { local?.maintainIndex() }
    finishing?()
    local?.writeDeferredIndex()
    // sync.state, last: its seal fingerprints the stores as the run left them.
    recordSyncState(after: report, mirror: mirror, cloud: cloud, continuing: previous)
  }
}
