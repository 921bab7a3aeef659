public import JSONLines
import LocalStore
import MirrorStore
public import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sync seal: a derived file, `sync.seal` beside the stores, that lets a `stash sync` with
/// nothing new skip opening both stores.
///
/// A CLI sync that ends with nothing left to do (no failure, nothing rejected, waiting,
/// stopped, missing or duplicated, nothing pending export, both transfer times recorded, no
/// damaged tail in either store) writes a fingerprint of everything a sync reads: for
/// `default.store` and `cloud.store` their inode, size, change and modification times and the
/// CRC-32 of every byte; the shared folder's path; its `zone.json` (size and CRC-32); and every
/// entry under its `devices/` folders (kind, inode, size, change time). The next sync takes the
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
/// sync reports. The seal is written without fsync: it is checked on every use.
extension SyncFolder {
  /// The seal's file name in the device folder.
  static let sealFileName = "sync.seal"
  static let sealFormat = "stash.sync.seal 2"

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
  /// It holds the folder's lock while it compares, as a sync does. On a match it records
  /// `now` as the last import and export in `sync-times.json`, as a full run would have.
  ///
  /// - Throws: ``StashError`` (busy) when another process holds the folder past the timeout.
  public static func syncIfUnchanged(
    at home: String, lockTimeout: Double = 3, now: Timestamp = .now(),
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) -> SyncRunReport? {
    let path = home + "/" + sealFileName
    guard (try? fileSystem.identity(atPath: path, followingLinks: false))??.kind == .regular,
      let sealed = readSmallFile(path, limit: 1 << 20, fileSystem: fileSystem),
      let sealTime = times(path)?.modification
    else { return nil }
    let lines = String(decoding: sealed, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map(String.init)
    let stores = [LocalStore.fileName, MirrorStore.fileName]
    guard lines.count > 3 + stores.count, lines[0] == sealFormat,
      lines[1 + stores.count].hasPrefix("cloud ")
    else { return nil }
    let cloud = String(lines[1 + stores.count].dropFirst("cloud ".count))
    let lock = FolderLock(folder: home, timeout: lockTimeout, fileSystem: fileSystem)
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    for (index, name) in stores.enumerated() {
      guard
        storeMatches(
          home + "/" + name, sealed: lines[1 + index], name: name, sealTime: sealTime,
          fileSystem: fileSystem)
      else { return nil }
    }
    guard let shared = sharedLines(cloud: cloud, fileSystem: fileSystem),
      Array(lines.dropFirst(1 + stores.count)) == shared + [""]
    else { return nil }
    // This run's import and export worked (they had nothing to do): record it as a full run
    // would have, in sync-times.json (outside the stores and the seal), for the mirror named
    // by cloud.store's first line.
    if let mirror = LogHeader.read(
      atPath: home + "/" + MirrorStore.fileName, fileSystem: fileSystem)?.storeID
    {
      SyncTimes.record(home: home, mirror: mirror, at: now, exported: true, fileSystem: fileSystem)
    }
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

  /// The whole seal for both stores and the shared folder `cloud` as they are now, or `nil`
  /// when something cannot be read (then no seal is written).
  static func sealBytes(home: String, cloud: String, fileSystem: any FileSystem) -> [UInt8]? {
    var lines = [sealFormat]
    for name in [LocalStore.fileName, MirrorStore.fileName] {
      let path = home + "/" + name
      guard let stat = storeStat(path, fileSystem: fileSystem),
        let crc = fileCRC(path, size: stat.size, fileSystem: fileSystem)
      else { return nil }
      lines.append("store \(name) \(stat.line) \(hex(crc))")
    }
    guard let shared = sharedLines(cloud: cloud, fileSystem: fileSystem) else { return nil }
    lines += shared
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// Whether the store at `path` is the one the seal's line recorded: the same inode, size
  /// and times, changed before the seal was written; else the same size and CRC-32.
  private static func storeMatches(
    _ path: String, sealed: String, name: String, sealTime: Int64, fileSystem: any FileSystem
  ) -> Bool {
    let fields = sealed.split(separator: " ").map(String.init)
    guard fields.count == 7, fields[0] == "store", fields[1] == name,
      let current = storeStat(path, fileSystem: fileSystem)
    else { return false }
    if current.line == fields[2...5].joined(separator: " ") && current.change < sealTime {
      return true
    }
    guard String(current.size) == fields[3],
      let crc = fileCRC(path, size: current.size, fileSystem: fileSystem)
    else { return false }
    return hex(crc) == fields[6]
  }

  /// A store file's inode, size and times (`nil` unless it is a regular file).
  private static func storeStat(_ path: String, fileSystem: any FileSystem) -> (
    line: String, size: Int64, change: Int64
  )? {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false),
      identity.kind == .regular, let times = times(path)
    else { return nil }
    return (
      "\(identity.inode) \(identity.size) \(times.change) \(times.modification)", identity.size,
      times.change
    )
  }

  /// The lines for the shared folder `cloud`: its path, its zone and every entry of its device
  /// folders.
  private static func sharedLines(cloud: String, fileSystem: any FileSystem) -> [String]? {
    guard !cloud.contains("\n") else { return nil }
    var lines = ["cloud " + cloud]
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
    return lines
  }

  /// The change and modification times of the entry at `path` (not following a link), in
  /// nanoseconds since 1970.
  private static func times(_ path: String) -> (change: Int64, modification: Int64)? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    #if canImport(Darwin)
      let change = info.st_ctimespec
      let modification = info.st_mtimespec
    #else
      let change = info.st_ctim
      let modification = info.st_mtim
    #endif
    func nanoseconds(_ time: timespec) -> Int64 {
      Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
    return (nanoseconds(change), nanoseconds(modification))
  }

  /// `<kind> <inode> <size> <change time>` of the entry at `path` (not following a link).
  private static func entryLine(_ path: String, _ fileSystem: any FileSystem) -> String? {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false),
      let times = times(path)
    else { return nil }
    return "\(identity.kind) \(identity.inode) \(identity.size) \(times.change)"
  }

  /// The CRC-32 of every byte of the file at `path`, read in 1 MiB pieces; `nil` unless it
  /// has exactly `size` bytes.
  private static func fileCRC(_ path: String, size: Int64, fileSystem: any FileSystem)
    -> UInt32?
  {
    guard let file = try? fileSystem.open(path, .readOnly, options: [.noFollow, .nonBlocking])
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
    return offset == size ? crc : nil
  }

  /// The whole regular file at `path` if it is at most `limit` bytes.
  private static func readSmallFile(_ path: String, limit: Int, fileSystem: any FileSystem)
    -> [UInt8]?
  {
    try? InputFile.read(path, fileSystem: fileSystem, maximumBytes: Int64(limit))
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
