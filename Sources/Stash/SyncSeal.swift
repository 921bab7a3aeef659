import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashFiles
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The seal of the sync state (see SyncFolder+Seal.swift for what it is and why it is safe).
///
/// Its fingerprint (the sync state's source) is lines of text: one `store` line for
/// `default.store` and one for `cloud.store` (`store NAME <inode> <size> <change time>
/// <modification time> <CRC-32>`); a `prefix` line describing the local store's committed
/// prefix (`prefix <device> <inode> <end> <last sequence> <lines>` and one
/// `<offset>:<length>:<line>:<CRC-32>` probe per line checked, or `prefix -`); then the shared
/// folder's lines (`cloud PATH`, `zone`, `device`, `file`, and `blobs` and one `blob NAME
/// <kind> <inode> <size> <change time>` per entry of its `blobs/` folder).
///
/// The `blob` lines are also what a sync knows of the shared photos: a clean sync checked
/// every photo this device holds in the shared folder, so one whose line is unchanged since is
/// intact without reading it again (``sealedPhotos(home:cloud:fileSystem:)``).
struct SyncSeal {
  static let storeNames = [LocalStore.fileName, MirrorStore.fileName]

  /// The `store` lines, the local store's first.
  let storeLines: [String]
  /// The local store's committed prefix when the seal was taken.
  let localPrefix: LogPrefix?
  /// The shared folder's lines, from `cloud PATH` on.
  let sharedLines: [String]
  /// The shared folder's path.
  let cloud: String
  /// When the seal was written (nanoseconds since 1970, as the file system stamps files);
  /// `nil` for a seal this process took and has not written yet.
  let time: Int64?

  /// The seal in `home`'s sync state, or `nil` when there is none.
  static func read(home: String, fileSystem: any FileSystem) -> SyncSeal? {
    SyncState.read(home: home, fileSystem: fileSystem).seal
  }

  /// The seal whose fingerprint is `fingerprint`, written at `time`; `nil` when the lines do
  /// not fit.
  init?(fingerprint: [UInt8], time: Int64?) {
    let lines = String(decoding: fingerprint, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map(String.init)
    guard lines.count > 3, lines[0].hasPrefix("store "), lines[1].hasPrefix("store "),
      lines[2].hasPrefix("prefix "), lines[3].hasPrefix("cloud ")
    else { return nil }
    self.init(
      storeLines: Array(lines[0...1]), localPrefix: Self.prefix(from: lines[2]),
      sharedLines: Array(lines[3...]), cloud: String(lines[3].dropFirst("cloud ".count)),
      time: time)
  }

  init(
    storeLines: [String], localPrefix: LogPrefix?, sharedLines: [String], cloud: String,
    time: Int64?
  ) {
    self.storeLines = storeLines
    self.localPrefix = localPrefix
    self.sharedLines = sharedLines
    self.cloud = cloud
    self.time = time
  }

  /// The fingerprint's bytes.
  var fingerprint: [UInt8] {
    Array((storeLines + [Self.prefixLine(localPrefix)] + sharedLines).joined(separator: "\n").utf8)
  }

  /// The seal of both stores and the shared folder `cloud` as they are now, or `nil` when
  /// something cannot be read (then no seal is written).
  ///
  /// - Parameters:
  ///   - localPrefix: The local store's committed prefix now.
  ///   - previous: The seal this sync started from, when the run proved that each store is
  ///     that seal's file with lines appended (a sync of sealed changes): the CRC-32 then goes
  ///     on from the recorded one over the appended bytes only. `nil` reads every byte.
  static func take(
    home: String, cloud: String, localPrefix: LogPrefix?, continuing previous: SyncSeal?,
    fileSystem: any FileSystem
  ) -> SyncSeal? {
    var lines = [String]()
    for (index, name) in storeNames.enumerated() {
      let path = home + "/" + name
      guard let stat = storeStat(path, fileSystem: fileSystem) else { return nil }
      var start: (offset: Int64, crc: UInt32) = (0, 0)
      if let previous {
        let fields = previous.storeLines[index].split(separator: " ").map(String.init)
        if fields.count == 7, fields[2] == String(stat.inode), let size = Int64(fields[3]),
          size <= stat.size, let crc = UInt32(fields[6], radix: 16)
        {
          start = (size, crc)
        }
      }
      guard let crc = fileCRC(path, size: stat.size, from: start, fileSystem: fileSystem) else {
        return nil
      }
      lines.append("store \(name) \(stat.line) \(hex(crc))")
    }
    guard let shared = sharedLines(cloud: cloud, fileSystem: fileSystem) else { return nil }
    return SyncSeal(
      storeLines: lines, localPrefix: localPrefix, sharedLines: shared, cloud: cloud, time: nil)
  }

  /// How a store, or everything, matched the seal.
  enum Match: Hashable, Sendable {
    /// Unchanged since the seal was written: the same inode, size and times, and changed
    /// before the seal was.
    case unchangedSinceSeal
    /// The same bytes (size and CRC-32 of every byte), read again because the stat line
    /// differed or the change time was not older than the seal: a seal written in the same
    /// tick of the file system's clock as the store's last write cannot tell that write from a
    /// later one, and a `touch` or a copy of the same bytes changes the stat line alone.
    /// `storeLines` are both stores' lines as they are now (their stat lines, taken before
    /// their bytes were read, with the CRC-32 checked): the seal stamped again with them
    /// (``stampedAgain(after:)``) spares the next sync that read.
    case sameBytes(storeLines: [String])
  }

  /// Whether the store (`index`: 0 the local store, 1 the mirror) is the one the seal's line
  /// recorded, and how it was told: unchanged since the seal by its stat line, or else the
  /// same size and CRC-32 of every byte (as git does for its index); `nil` when it is not.
  /// `line` is the store's line as it is now: its stat line, taken before its bytes were read,
  /// and the recorded CRC-32.
  func storeMatch(_ index: Int, home: String, fileSystem: any FileSystem) -> (
    line: String, byTimes: Bool
  )? {
    let name = Self.storeNames[index]
    let fields = storeLines[index].split(separator: " ").map(String.init)
    guard fields.count == 7, fields[0] == "store", fields[1] == name,
      let current = Self.storeStat(home + "/" + name, fileSystem: fileSystem)
    else { return nil }
    let line = "store \(name) \(current.line) \(fields[6])"
    if let time, current.line == fields[2...5].joined(separator: " ") && current.change < time {
      return (line, true)
    }
    guard String(current.size) == fields[3],
      let crc = Self.fileCRC(
        home + "/" + name, size: current.size, from: (0, 0), fileSystem: fileSystem)
    else { return nil }
    return Self.hex(crc) == fields[6] ? (line, false) : nil
  }

  /// Whether both stores and the shared folder are exactly as the seal recorded them (a sync
  /// now has nothing to do), and how the stores were told (``Match/sameBytes`` when either
  /// was read again); `nil` when something differs.
  func match(home: String, fileSystem: any FileSystem) -> Match? {
    guard let local = storeMatch(0, home: home, fileSystem: fileSystem),
      let mirror = storeMatch(1, home: home, fileSystem: fileSystem),
      sharedFolderMatches(home: home, fileSystem: fileSystem)
    else { return nil }
    return local.byTimes && mirror.byTimes
      ? .unchangedSinceSeal : .sameBytes(storeLines: [local.line, mirror.line])
  }

  /// Whether both stores and the shared folder are exactly as the seal recorded them.
  func matchesEverything(home: String, fileSystem: any FileSystem) -> Bool {
    match(home: home, fileSystem: fileSystem) != nil
  }

  /// Whether the shared folder is as the seal recorded it, and, for an encrypted one, its
  /// `keys/` names no key the device folder `home` lacks (a rotation since the seal, which
  /// the fingerprint does not cover: the full sync then runs and says so).
  func sharedFolderMatches(home: String, fileSystem: any FileSystem) -> Bool {
    !SyncFolder.namesUnheldKey(home: home, cloud: cloud, fileSystem: fileSystem)
      && Self.sharedLines(cloud: cloud, fileSystem: fileSystem) == sharedLines
  }

  /// This seal to write again after `match`, with the stores' lines as they are now and the
  /// time it is written at; `nil` when the stores matched by their times (nothing to stamp).
  /// As safe as taking the seal anew would be: every byte was checked under the folder's lock
  /// after its stat line was taken, and any write after that stamps the store with a change
  /// time no older than the new seal's.
  func stampedAgain(after match: Match) -> SyncSeal? {
    guard case .sameBytes(let lines) = match else { return nil }
    return SyncSeal(
      storeLines: lines, localPrefix: localPrefix, sharedLines: sharedLines, cloud: cloud,
      time: nil)
  }

  /// The latest change time of the stores the seal recorded (nanoseconds since 1970).
  var latestStoreChange: Int64 {
    storeLines.compactMap { line in
      let fields = line.split(separator: " ")
      return fields.count == 7 ? Int64(fields[4]) : nil
    }.max() ?? 0
  }

  // MARK: The prefix line

  static func prefixLine(_ prefix: LogPrefix?) -> String {
    guard let prefix else { return "prefix -" }
    let head =
      "prefix \(prefix.device) \(prefix.inode) \(prefix.end) \(prefix.lastSequence) \(prefix.lines)"
    let probes = prefix.probes.map {
      "\($0.span.offset):\($0.span.length):\($0.span.line):\(hex($0.checksum))"
    }
    return ([head] + probes).joined(separator: " ")
  }

  private static func prefix(from line: String) -> LogPrefix? {
    let fields = line.split(separator: " ").map(String.init)
    guard fields.count >= 8, let device = UInt64(fields[1]), let inode = UInt64(fields[2]),
      let end = Int64(fields[3]), let sequence = Int64(fields[4]), let lines = Int(fields[5])
    else { return nil }
    var probes = [LogPrefix.Probe]()
    for field in fields[6...] {
      let parts = field.split(separator: ":").map(String.init)
      guard parts.count == 4, let offset = Int64(parts[0]), let length = Int(parts[1]),
        let number = Int(parts[2]), let checksum = UInt32(parts[3], radix: 16)
      else { return nil }
      probes.append(
        LogPrefix.Probe(
          span: LineSpan(offset: offset, length: length, line: number), checksum: checksum))
    }
    return LogPrefix(
      device: device, inode: inode, end: end, lastSequence: sequence, lines: lines,
      probes: probes)
  }

  // MARK: Fingerprints

  /// A store file's inode, size and times (`nil` unless it is a regular file).
  static func storeStat(_ path: String, fileSystem: any FileSystem) -> (
    line: String, size: Int64, change: Int64, inode: UInt64
  )? {
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false),
      identity.kind == .regular, let times = times(path)
    else { return nil }
    return (
      "\(identity.inode) \(identity.size) \(times.change) \(times.modification)", identity.size,
      times.change, identity.inode
    )
  }

  /// The lines for the shared folder `cloud`: its path, its zone and every entry of its device
  /// folders.
  static func sharedLines(cloud: String, fileSystem: any FileSystem) -> [String]? {
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
    let blobs = cloud + "/blobs"
    guard let entry = entryLine(blobs, fileSystem) else { return lines }
    lines.append("blobs \(entry)")
    guard entry.hasPrefix("directory") else { return lines }
    guard let names = try? fileSystem.contentsOfDirectory(blobs) else { return nil }
    for name in names.sorted() {
      guard !name.contains("\n"), let entry = entryLine(blobs + "/" + name, fileSystem) else {
        return nil
      }
      lines.append("blob \(name) \(entry)")
    }
    return lines
  }

  /// The shared folder's photos as the seal in `home` recorded them (name, then the entry as
  /// ``photoEntry(cloud:name:fileSystem:)`` gives it), when the seal is of the folder `cloud`;
  /// empty otherwise.
  static func sealedPhotos(
    home: String, cloud: String, fileSystem: any FileSystem
  ) -> [String: String] {
    guard let seal = read(home: home, fileSystem: fileSystem), seal.cloud == cloud else {
      return [:]
    }
    var photos = [String: String]()
    for line in seal.sharedLines where line.hasPrefix("blob ") {
      let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
      if fields.count == 3 { photos[fields[1]] = fields[2] }
    }
    return photos
  }

  /// The entry of the shared photo `name` now, as a seal's `blob` line records it.
  static func photoEntry(cloud: String, name: String, fileSystem: any FileSystem) -> String? {
    entryLine(cloud + "/blobs/" + name, fileSystem)
  }

  /// The change and modification times of the entry at `path` (not following a link), in
  /// nanoseconds since 1970.
  static func times(_ path: String) -> (change: Int64, modification: Int64)? {
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

  /// The CRC-32 of every byte of the file at `path`, read in 1 MiB pieces from `start` on,
  /// going on from the CRC-32 of the bytes before it; `nil` unless it has exactly `size` bytes.
  private static func fileCRC(
    _ path: String, size: Int64, from start: (offset: Int64, crc: UInt32),
    fileSystem: any FileSystem
  ) -> UInt32? {
    guard let file = try? fileSystem.open(path, .readOnly, options: [.noFollow, .nonBlocking])
    else { return nil }
    defer { fileSystem.close(file) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset = start.offset
    var crc = start.crc
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

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
