import JSONLines
import MirrorStore
import StashModel

/// When this device last imported and exported successfully, for `sync status` only.
///
/// Kept in `sync-times.json` beside the stores, outside both: DESIGN's idempotence invariant
/// says a sync with nothing new changes no store file, yet a person asks when sync last
/// worked. The file is derived and trusted for nothing but display: written after every sync
/// whose import worked (temporary file and rename, without fsync), bound to the mirror's store
/// id (a new mirror starts without times), and when it is missing, damaged, of a newer format
/// or another mirror's, `sync status` shows the mirror's recorded time instead. A failure to
/// write it never fails the sync. Deleting it is always safe.
///
/// `{"format":"stash-sync-times","version":1,"mirror":"<store id>","lastImport":<seconds
/// since 1970>|null,"lastExport":…}`
struct SyncTimes: Hashable, Sendable {
  /// The file's name in the device folder.
  static let fileName = "sync-times.json"
  static let format = "stash-sync-times"
  static let version: Int64 = 1
  /// Larger than any file this code writes: anything bigger is not one of ours.
  static let maximumBytes: Int64 = 4096

  /// The mirror the times are about.
  var mirror: StoreID
  var lastImport: Timestamp?
  var lastExport: Timestamp?

  /// The file's bytes: one JSON object and a newline.
  var bytes: [UInt8] {
    func time(_ timestamp: Timestamp?) -> JSONValue {
      timestamp.map { .double($0.secondsSince1970) } ?? .null
    }
    let object: JSONObject = [
      "format": .string(Self.format), "version": .integer(Self.version),
      "mirror": .string(mirror.rawValue), "lastImport": time(lastImport),
      "lastExport": time(lastExport),
    ]
    return JSONWriter.bytes(.object(object)) + [UInt8(ascii: "\n")]
  }

  /// The times in `bytes`, or `nil` when they are not a file of this format and version.
  init?(bytes: [UInt8]) {
    guard case .object(let object)? = try? JSONParser.parse(bytes),
      object["format"] == .string(Self.format), object["version"] == .integer(Self.version),
      case .string(let text)? = object["mirror"], let mirror = StoreID(text)
    else { return nil }
    func time(_ key: String) -> Timestamp?? {
      switch object[key] {
      case .null?: return .some(nil)
      case .double(let seconds)?: return Timestamp(secondsSince1970: seconds).map { $0 }
      case .integer(let seconds)?: return Timestamp(secondsSince1970: Double(seconds)).map { $0 }
      default: return nil
      }
    }
    guard let lastImport = time("lastImport"), let lastExport = time("lastExport") else {
      return nil
    }
    self.init(mirror: mirror, lastImport: lastImport, lastExport: lastExport)
  }

  init(mirror: StoreID, lastImport: Timestamp?, lastExport: Timestamp?) {
    self.mirror = mirror
    self.lastImport = lastImport
    self.lastExport = lastExport
  }

  /// The times in `home`'s file for `mirror`; `nil` when the file is missing, unreadable,
  /// damaged, of another format or version, or about another mirror.
  static func read(home: String, mirror: StoreID, fileSystem: any FileSystem) -> SyncTimes? {
    guard
      let bytes = try? InputFile.read(
        home + "/" + fileName, fileSystem: fileSystem, maximumBytes: maximumBytes),
      let times = SyncTimes(bytes: bytes), times.mirror == mirror
    else { return nil }
    return times
  }

  /// Records an import that worked at `time`, and the export too when `exported`, in
  /// `home`'s file for `mirror` (times for another mirror or a damaged file start afresh).
  static func record(
    home: String, mirror: StoreID, at time: Timestamp, exported: Bool,
    fileSystem: any FileSystem
  ) {
    var times =
      read(home: home, mirror: mirror, fileSystem: fileSystem)
      ?? SyncTimes(mirror: mirror, lastImport: nil, lastExport: nil)
    times.lastImport = time
    if exported { times.lastExport = time }
    times.write(home: home, fileSystem: fileSystem)
  }

  /// Writes the times into `home` (all or nothing, not synchronized); a failure is ignored,
  /// as the file only ever adds to what `sync status` shows.
  func write(home: String, fileSystem: any FileSystem) {
    try? fileSystem.writeFileAtomically(home + "/" + Self.fileName, bytes, durable: false)
  }
}

extension SyncFolder {
  /// Records this run's import (it worked, or the run would have thrown) and its export when
  /// it worked, in `sync-times.json`: never in a store, so that a run with nothing new still
  /// changes no store file.
  func recordSyncTimes(of report: SyncRunReport, in mirror: MirrorStore) {
    SyncTimes.record(
      home: home, mirror: mirror.storeID, at: clock(),
      exported: report.exportError == nil && report.exportStopped == nil,
      fileSystem: fileSystem)
  }

  /// The later of the mirror's recorded times and those of `sync-times.json`.
  func lastTransfers(of mirror: MirrorStore) -> (import: Timestamp?, export: Timestamp?) {
    let content = mirror.content
    let times = SyncTimes.read(home: home, mirror: mirror.storeID, fileSystem: fileSystem)
    func later(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
      guard let a, let b else { return a ?? b }
      return a.secondsSince1970 >= b.secondsSince1970 ? a : b
    }
    return (
      later(content.lastImport, times?.lastImport), later(content.lastExport, times?.lastExport)
    )
  }
}
