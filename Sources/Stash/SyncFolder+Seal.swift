import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
import StashCrypto
import StashFiles
import StashModel

/// The sync seal, kept in the sync state (`sync.state`, ``SyncState``): it lets a `stash sync`
/// with nothing new skip opening both stores.
///
/// A sync that ends with nothing left to do (no failure, nothing rejected, waiting,
/// stopped, missing or duplicated, no other zone in the folder, nothing pending export, both
/// transfer times recorded, no damaged tail in either store) writes a fingerprint of everything a sync reads: for
/// `default.store` and `cloud.store` their inode, size, change and modification times and the
/// CRC-32 of every byte; the shared folder's path; its `zone.json` (size and CRC-32); and every
/// entry under its `devices/` folders and in its `blobs/` folder (kind, inode, size, change
/// time). The next sync takes the
/// same fingerprint afresh and skips only when it matches. A store matches when its inode,
/// size and both times are the ones recorded and its change time is older than the seal (the
/// kernel sets the change time on every write, and no tool can set it back); otherwise, as
/// git does for its index, only when its size and the CRC-32 of all its bytes are the ones
/// recorded. Whatever changed (a local edit, a hand edit of either store, a new, growing or
/// removed segment, a changed zone, another folder's or a damaged seal) makes the fingerprint
/// differ, and the full sync runs.
///
/// Skipping is safe because a sync over unchanged stores and an unchanged shared folder is a
/// no-op (DESIGN invariant 4, idempotence): the skipped run reads nothing new, so its pass and
/// export have nothing to do, and nothing is written (the gate rule, invariant 6, holds
/// trivially). The simulation checks that every sync the seal would skip reports what a full
/// sync reports. The sync state is written without fsync: it is checked on every use.
///
/// The seal also keeps the local store's committed prefix, from which a sync of the local
/// edits made since starts (``SealedChanges``); its layout is in ``SyncSeal``.
extension SyncFolder {
  /// The report of a sync with nothing new: what a full run over unchanged stores and an
  /// unchanged shared folder reports.
  static var nothingNewReport: SyncRunReport {
    var report = SyncRunReport()
    report.gateOpened = true
    report.passRan = true
    report.choice = .nothingNew
    return report
  }

  /// Whether the encrypted shared folder's `keys/` holds a key file this device holds no key
  /// of (a rotation since the seal, which the seal's fingerprint does not cover): then the
  /// full sync runs, and says so. Always `false` for a device without keys.
  static func namesUnheldKey(home: String, cloud: String, fileSystem: any FileSystem) -> Bool {
    guard let keyring = try? SyncKeyFile.read(at: home + "/" + SyncKeyFile.fileName) else {
      return false
    }
    let held = Set(keyring.ids.map(\.hex))
    let names = (try? fileSystem.contentsOfDirectory(cloud + "/keys")) ?? []
    return names.contains { $0.hasSuffix(".json") && !held.contains(String($0.dropLast(5))) }
  }

  /// Records a sync with nothing new, which runs nothing (the sync state matched both stores
  /// and the shared folder exactly as they are now: the caller holds the folder's lock), and
  /// returns its report.
  ///
  /// This run's import and export worked (they had nothing to do): it records `now` as a
  /// full run would have, in the sync state's times (outside the stores), for the mirror named
  /// by `cloud.store`'s first line.
  ///
  /// - Parameter seal: The seal that matched, stamped again (``SyncSeal/stampedAgain(after:)``)
  ///   when a store matched it only by its bytes: written with the stores' current lines and a
  ///   new time, so that the next sync trusts the stores' times instead of reading every byte
  ///   again (without this, a seal written in the same tick as the mirror's last write, or a
  ///   `touch` of a store, made every later sync read both stores whole).
  static func skip(
    home: String, now: Timestamp, fileSystem: any FileSystem, stampingAgain seal: SyncSeal? = nil
  ) -> SyncRunReport {
    if let mirror = LogHeader.read(
      atPath: home + "/" + MirrorStore.fileName, fileSystem: fileSystem)?.storeID
    {
      recordSync(
        home: home, mirror: mirror, at: now, exported: true, seal: seal,
        fileSystem: fileSystem)
    }
    return nothingNewReport
  }

  /// Records a run that got as far as its import in the sync state, in one write: its
  /// transfer times, and a new seal when it left nothing to do (else the earlier seal stays,
  /// and it matches only if both stores and the folder return to what that clean run left).
  /// Failing to write it only costs the next sync its shortcut.
  ///
  /// - Parameter previous: The seal the run started from when it proved both stores are that
  ///   seal's files with lines appended (a sync of sealed changes): their CRC-32 then goes on
  ///   over the appended bytes instead of reading every byte again.
  func recordSyncState(
    after report: SyncRunReport, mirror: MirrorStore, cloud folder: CloudFolder,
    continuing previous: SyncSeal? = nil
  ) {
    Self.recordSync(
      home: home, mirror: mirror.storeID, at: clock(),
      exported: report.exportError == nil && report.exportStopped == nil,
      seal: seal(after: report, mirror: mirror, cloud: folder, continuing: previous),
      fileSystem: fileSystem)
  }

  /// The seal of a run that left nothing to do; `nil` after any other.
  private func seal(
    after report: SyncRunReport, mirror: MirrorStore, cloud folder: CloudFolder,
    continuing previous: SyncSeal?
  ) -> SyncSeal? {
    let content = mirror.content
    let clean =
      report.passRan && report.passError == nil && report.exportError == nil
      && report.exportStopped == nil && report.rejectedSegments.isEmpty
      && report.missingKeys.isEmpty
      && report.waiting.isEmpty && report.photosMissing.isEmpty && report.duplicates == 0
      && !report.otherZones.contains(where: \.hasLiveSegments)
      && content.pending.isEmpty && content.lastImport != nil && content.lastExport != nil
      && mirror.droppedTail == nil && local?.openReport.tail == nil
    guard clean, let cloud = settings.cloudFolder,
      let seal = SyncSeal.take(
        home: home, cloud: cloud, localPrefix: local?.describePrefix(), continuing: previous,
        fileSystem: fileSystem),
      // Checked after the fingerprint was taken: a segment published since this run's import
      // listed the folder is in the fingerprint, and the next sync would skip it.
      folder.holdsNothingUnseen(by: mirror.content)
    else { return nil }
    return seal
  }
}
