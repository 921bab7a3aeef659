public import JSONLines
import LocalStore
import MirrorStore
import StashModel

/// The sync seal: a derived file, `sync.seal` beside the stores, that lets a `stash sync` with
/// nothing new skip opening both stores.
///
/// A CLI sync that ends with nothing left to do (no failure, nothing rejected, waiting,
/// stopped, missing or duplicated, nothing pending export, both transfer times recorded, no
/// damaged tail in either store) writes a fingerprint of everything a sync reads: the inode,
/// size and CRC-32 of every byte of `default.store` and `cloud.store`, the shared folder's
/// path, its `zone.json` (size and CRC-32) and every entry under its `devices/` folders
/// (kind, inode and size). The next sync computes the same fingerprint afresh and compares it
/// byte for byte with the file: only when they are equal is the sync skipped. Whatever changed
/// (a local edit, a hand edit of either store, a new or growing segment, a removed one, a
/// replaced zone, another folder's or a damaged seal) makes them differ, and the full sync
/// runs. Skipping is safe because a sync over unchanged stores and an unchanged shared folder
/// is a no-op (DESIGN invariant 4, idempotence): the skipped run reads nothing new, so its
/// pass and export have nothing to do, and nothing is written (so the gate rule, invariant 6,
/// holds trivially). The seal is written without fsync: it checks itself on every use.
extension SyncFolder {
  /// The seal's file name in the device folder.
  static let sealFileName = "sync.seal"
  static let sealFormat = "stash.sync.seal 1"

  /// The report of a sync with nothing new: what a full run over unchanged stores and an
  /// unchanged shared folder reports.
  static var nothingNewReport: SyncRunReport {
    var report = SyncRunReport()
    report.gateOpened = true
    report.passRan = true
    return report
  }

  /// Runs nothing and returns the report of a sync with nothing new when the seal in `home`
  /// matches both stores and the shared folder exactly as they are now; `nil` (run the full
  /// sync) otherwise, including when the seal is missing, damaged, stale or another folder's.
  ///
  /// It holds the folder's lock while it compares, as a sync does.
  ///
  /// - Throws: ``StashError`` (busy) when another process holds the folder past the timeout.
  public static func syncIfUnchanged(
    at home: String, lockTimeout: Double = 3, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) -> SyncRunReport? {
    let path = home + "/" + sealFileName
    guard (try? fileSystem.identity(atPath: path, followingLinks: false))??.kind == .regular,
      let sealed = readSmallFile(path, limit: 1 << 20, fileSystem: fileSystem)
    else { return nil }
    let lines = String(decoding: sealed, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    guard lines.first == Substring(sealFormat),
      let cloudLine = lines.first(where: { $0.hasPrefix("cloud ") })
    else { return nil }
    let cloud = String(cloudLine.dropFirst("cloud ".count))
    let lock = FolderLock(folder: home, timeout: lockTimeout, fileSystem: fileSystem)
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    guard let current = sealBytes(home: home, cloud: cloud, fileSystem: fileSystem),
      current == sealed
    else { return nil }
    return nothingNewReport
  }

  /// Writes the seal after a sync that left nothing to do (and nothing otherwise). Failing to
  /// write it only costs the next sync its shortcut.
  func updateSeal(after report: SyncRunReport, mirror: MirrorStore) {
    let path = home + "/" + Self.sealFileName
    let content = mirror.content
    let clean =
      report.passRan && report.passError == nil && report.exportError == nil
      && report.exportStopped == nil && report.rejectedSegments.isEmpty
      && report.waiting.isEmpty && report.photosMissing.isEmpty && report.duplicates == 0
      && content.pending.isEmpty && content.lastImport != nil && content.lastExport != nil
      && mirror.droppedTail == nil && local?.openReport.tail == nil
    // A run that leaves something to do writes nothing: an earlier seal stays, and it matches
    // only if both stores and the folder return to what that clean run left.
    guard clean, let cloud = settings.cloudFolder,
      let bytes = Self.sealBytes(home: home, cloud: cloud, fileSystem: fileSystem)
    else { return }
    if (try? fileSystem.writeFileAtomically(path, bytes, durable: false)) == nil {
      try? fileSystem.removeFile(path)
    }
  }

  /// The fingerprint of both stores and the shared folder `cloud` as they are now, or `nil`
  /// when something cannot be read (then no shortcut is taken).
  static func sealBytes(home: String, cloud: String, fileSystem: any FileSystem) -> [UInt8]? {
    var lines = [sealFormat]
    for name in [LocalStore.fileName, MirrorStore.fileName] {
      guard let line = fileLine(home + "/" + name, fileSystem: fileSystem) else { return nil }
      lines.append("store \(name) " + line)
    }
    guard !cloud.contains("\n") else { return nil }
    lines.append("cloud " + cloud)
    guard let zone = readSmallFile(cloud + "/zone.json", limit: 64 << 10, fileSystem: fileSystem)
    else { return nil }
    lines.append("zone \(zone.count) \(hex(CRC32.checksum(zone)))")
    let devices = cloud + "/devices"
    guard let folders = try? fileSystem.contentsOfDirectory(devices) else { return nil }
    for folder in folders.sorted() {
      guard !folder.contains("\n"), let entry = entryLine(devices + "/" + folder, fileSystem)
      else { return nil }
      lines.append("device \(folder) \(entry)")
      guard entry.hasPrefix("directory") else { continue }
      guard let files = try? fileSystem.contentsOfDirectory(devices + "/" + folder) else {
        return nil
      }
      for file in files.sorted() {
        guard !file.contains("\n"),
          let entry = entryLine(devices + "/" + folder + "/" + file, fileSystem)
        else { return nil }
        lines.append("file \(file) \(entry)")
      }
    }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// `<kind> <inode> <size>` of the entry at `path` (not following a link).
  private static func entryLine(_ path: String, _ fileSystem: any FileSystem) -> String? {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false) else {
      return nil
    }
    return "\(identity.kind) \(identity.inode) \(identity.size)"
  }

  /// `<inode> <size> <CRC-32 of every byte>` of a regular file, read in 1 MiB pieces.
  private static func fileLine(_ path: String, fileSystem: any FileSystem) -> String? {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false),
      identity.kind == .regular,
      let file = try? fileSystem.open(path, .readOnly, options: [.noFollow, .nonBlocking])
    else { return nil }
    defer { fileSystem.close(file) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: Int64 = 0
    var crc: UInt32 = 0
    while true {
      let count: Int? = buffer.withUnsafeMutableBytes { raw in
        try? fileSystem.read(file, into: raw, at: offset)
      }
      guard let count else { return nil }
      if count == 0 { break }
      crc = buffer.withUnsafeBytes {
        CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<count]), continuing: crc)
      }
      offset += Int64(count)
    }
    guard offset == identity.size else { return nil }
    return "\(identity.inode) \(identity.size) \(hex(crc))"
  }

  /// The whole regular file at `path` if it is at most `limit` bytes.
  private static func readSmallFile(_ path: String, limit: Int, fileSystem: any FileSystem)
    -> [UInt8]?
  {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false),
      identity.kind == .regular, identity.size <= Int64(limit),
      let file = try? fileSystem.open(path, .readOnly, options: [.noFollow, .nonBlocking])
    else { return nil }
    defer { fileSystem.close(file) }
    guard let bytes = try? fileSystem.read(file, count: limit + 1, at: 0), bytes.count <= limit
    else { return nil }
    return bytes
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
