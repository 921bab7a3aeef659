import JSONLines
import MirrorStore
import StashFiles
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `sync.state` beside the stores: what a sync keeps for the next one, derived and never
/// trusted for more than it proves.
///
/// It holds two things, in one ``DerivedFile`` (Fixtures/README.md section 8):
/// - the seal (``SyncSeal``), as its source: the fingerprint of both stores and the shared
///   folder after the last sync that left nothing to do, which lets the next sync skip or
///   pass over local changes only (SyncFolder+Seal.swift);
/// - when this device last imported and exported successfully, for `sync status` only, bound
///   to the mirror's store id (a new mirror starts without times). DESIGN's idempotence
///   invariant says a sync with nothing new changes no store file, yet a person asks when
///   sync last worked.
///
/// Head: `i64` when the seal was taken (nanoseconds since 1970; 0: the file's own
/// modification time, as when it was first written), `u8` 1 when times follow, then `u16`
/// length and the mirror's id, `u8` which times are known (1 import, 2 export) and each as a
/// `f64` of seconds since 1970. No body. Written without fsync after every sync whose import
/// worked; a file that is missing, damaged or of another version is ignored (the full sync
/// runs, `sync status` shows the mirror's recorded times). Its predecessors, `sync.seal` and
/// `sync-times.json`, are ignored and removed when it is written, with `default.store.digest`
/// (now the local index's digest section), the other derived file of earlier releases.
/// Deleting it is always safe.
struct SyncState {
  /// The file's name in the device folder.
  static let fileName = "sync.state"
  /// The kind: format 1.
  static let kind = DerivedFile(tag: "stash.sync.state", version: 1)
  /// The derived files of earlier releases that it and the local index replace, removed when
  /// it is written (the last derived file a sync writes).
  static let predecessors = ["sync.seal", "sync-times.json", "default.store.digest"]

  /// The seal of the last sync that left nothing to do, if any.
  var seal: SyncSeal?
  /// The last successful transfers.
  var times: SyncTimes?

  /// The state in `home`; empty when the file is missing or ignored.
  static func read(home: String, fileSystem: any FileSystem) -> SyncState {
    (try? load(home: home, fileSystem: fileSystem).get()) ?? SyncState()
  }

  /// The state in `home`, or why the file is ignored (for `stash doctor`).
  static func load(home: String, fileSystem: any FileSystem) -> Result<
    SyncState, DerivedFile.Ignored
  > {
    let path = home + "/" + fileName
    return kind.read(at: path, fileSystem: fileSystem).flatMap { file in
      guard case .fingerprint(let fingerprint) = file.source,
        let head = Head(file.head), file.bodyLength == 0
      else { return .failure(.damaged) }
      var state = SyncState(times: head.times)
      if !fingerprint.isEmpty {
        guard let time = head.sealedAt ?? SyncSeal.times(path)?.modification,
          let seal = SyncSeal(fingerprint: fingerprint, time: time)
        else { return .failure(.damaged) }
        state.seal = seal
      }
      return .success(state)
    }
  }

  /// Whether `other` holds the same seal and times.
  func holdsTheSame(as other: SyncState) -> Bool {
    seal?.fingerprint == other.seal?.fingerprint && times == other.times
  }

  /// Writes the state into `home` and removes its predecessors; a failure is ignored (the
  /// file is derived).
  func write(home: String, fileSystem: any FileSystem) {
    let head = Head(sealedAt: seal?.time, times: times)
    let bytes = Self.kind.encode(
      source: .fingerprint(seal?.fingerprint ?? []), head: head.bytes, body: [])
    DerivedFile.write(bytes, to: home + "/" + Self.fileName, fileSystem: fileSystem)
    for name in Self.predecessors { try? fileSystem.removeFile(home + "/" + name) }
  }

  /// The head's fields.
  struct Head {
    /// When the seal was taken, if not the file's modification time.
    var sealedAt: Int64?
    var times: SyncTimes?

    init(sealedAt: Int64?, times: SyncTimes?) {
      self.sealedAt = sealedAt
      self.times = times
    }

    init?(_ bytes: [UInt8]) {
      let parsed: Head?? = bytes.withUnsafeBytes { raw in
        var reader = RawReader(raw)
        guard let sealedAt: Int64 = reader.integer(), let hasTimes: UInt8 = reader.integer(),
          hasTimes <= 1
        else { return nil }
        var head = Head(sealedAt: sealedAt == 0 ? nil : sealedAt, times: nil)
        if hasTimes == 1 {
          guard let id = reader.bytes(width: 2), let text = String(validating: id, as: UTF8.self),
            let mirror = StoreID(text), let known: UInt8 = reader.integer(), known <= 3,
            let imported: UInt64 = reader.integer(), let exported: UInt64 = reader.integer()
          else { return nil }
          func time(_ bits: UInt64, _ flag: UInt8) -> Timestamp? {
            known & flag == 0 ? nil : Timestamp(secondsSince1970: Double(bitPattern: bits))
          }
          head.times = SyncTimes(
            mirror: mirror, lastImport: time(imported, 1), lastExport: time(exported, 2))
        }
        return reader.isAtEnd ? head : nil
      }
      guard let parsed, let head = parsed else { return nil }
      self = head
    }

    var bytes: [UInt8] {
      var out = ByteWriter()
      out.integer(sealedAt ?? 0)
      out.integer(UInt8(times == nil ? 0 : 1))
      if let times {
        out.bytes(Array(times.mirror.rawValue.utf8), width: 2)
        out.integer(UInt8((times.lastImport == nil ? 0 : 1) | (times.lastExport == nil ? 0 : 2)))
        out.integer((times.lastImport?.secondsSince1970 ?? 0).bitPattern)
        out.integer((times.lastExport?.secondsSince1970 ?? 0).bitPattern)
      }
      return out.output
    }
  }
}

/// When this device last imported and exported successfully, for `sync status` only (kept in
/// ``SyncState``).
struct SyncTimes: Hashable, Sendable {
  /// The mirror the times are about.
  var mirror: StoreID
  var lastImport: Timestamp?
  var lastExport: Timestamp?
}

extension SyncFolder {
  /// The sync state after a run that got as far as its import: this run's import (it worked,
  /// or the run would have thrown) and its export when it worked, recorded for `mirror`
  /// (times for another mirror start afresh), and `seal` when the run left nothing to do
  /// (otherwise the earlier seal stays: it matches only if both stores and the folder return
  /// to what that clean run left). Never in a store, so that a run with nothing new still
  /// changes no store file.
  static func recordSync(
    home: String, mirror: StoreID, at time: Timestamp, exported: Bool, seal: SyncSeal?,
    fileSystem: any FileSystem
  ) {
    let before = SyncState.read(home: home, fileSystem: fileSystem)
    var state = before
    var times = state.times ?? SyncTimes(mirror: mirror, lastImport: nil, lastExport: nil)
    if times.mirror != mirror {
      times = SyncTimes(mirror: mirror, lastImport: nil, lastExport: nil)
    }
    times.lastImport = time
    if exported { times.lastExport = time }
    state.times = times
    if let seal { state.seal = seal }
    // A run that changes nothing of it leaves the file as it is (its time included), unless
    // it brings a seal to stamp with the time it is written at.
    let stamping = seal != nil && seal?.time == nil
    guard stamping || !state.holdsTheSame(as: before) else { return }
    if let seal, stamping { waitForTheClockToPass(seal.latestStoreChange) }
    state.write(home: home, fileSystem: fileSystem)
  }

  /// Waits, a few milliseconds at most, until the file system's clock is past `change` (the
  /// stores' last change), so that the sync state written next (whose time is its seal's) is
  /// later than it. Written in the same tick of that clock as the mirror's last write, the
  /// seal could not tell that write from a later one, and the next sync would read both
  /// stores whole to be sure (6 of 10 syncs at 100,000 items, as measured). It reads a clock and
  /// sleeps, and never calls the file system, so that the sequence of calls a sync makes is
  /// the same in every run (the fault-injection tests count them). A file system that stamps
  /// in coarser steps is not waited for: the next sync with nothing new reads the stores,
  /// finds the same bytes and stamps the seal again
  /// (``skip(home:now:fileSystem:stampingAgain:)``).
  private static func waitForTheClockToPass(_ change: Int64) {
    for _ in 0..<40 {
      guard fileSystemClock() <= change else { return }
      usleep(250)
    }
  }

  /// The clock the file system stamps files with, in nanoseconds since 1970: on Linux the
  /// kernel's coarse real-time clock (a file's times never precede it), elsewhere the real-time
  /// clock.
  private static func fileSystemClock() -> Int64 {
    var now = timespec()
    #if os(Linux)
      clock_gettime(CLOCK_REALTIME_COARSE, &now)
    #else
      clock_gettime(CLOCK_REALTIME, &now)
    #endif
    return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
  }

  /// The later of the mirror's recorded times and those of the sync state.
  func lastTransfers(of mirror: MirrorStore) -> (import: Timestamp?, export: Timestamp?) {
    let content = mirror.content
    let times = SyncState.read(home: home, fileSystem: fileSystem).times.flatMap {
      $0.mirror == mirror.storeID ? $0 : nil
    }
    func later(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
      guard let a, let b else { return a ?? b }
      return a.secondsSince1970 >= b.secondsSince1970 ? a : b
    }
    return (
      later(content.lastImport, times?.lastImport), later(content.lastExport, times?.lastExport)
    )
  }
}
