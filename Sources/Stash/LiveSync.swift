import Foundation
import LocalStore
import MirrorStore
public import StashFiles
import Synchronization

/// Keeps a device folder in sync with its shared folder for as long as it runs: the engine
/// behind `stash sync --watch`.
///
/// Every ``interval`` it takes a fingerprint of what a sync reads (the two store files'
/// `stat` lines, and the shared folder's zone, device folders, segment files and photos, each
/// by its `stat` line), without taking the folder's lock; only when the fingerprint changed
/// does it run an exchange (a sync, which takes the lock for its own duration and chooses the
/// cheapest run that is the whole sync). A local save changes the local store, a segment or
/// photo that arrives changes the shared folder's listing: either starts an exchange at the
/// next tick. The polling is correct on its own: a network share or a sync tool that writes
/// without file-system events is seen at the next tick. File-system events on what a sync
/// reads end the wait as soon as something changes there (``FileEvents``: inotify on Linux,
/// kqueue on Apple platforms); the fingerprint still decides.
///
/// Each exchange is a separate sync, so the import gate keeps its meaning: nothing is copied
/// before that exchange's own import finished successfully. A failed exchange (the shared
/// folder unreachable, the folder busy) is told with the wait before the next try, which
/// doubles up to ``maximumBackoff``; the fingerprint taken before a failed exchange is not
/// kept, so the next tick after the wait tries again.
public struct LiveSync: Sendable {
  /// What happened at a tick that did something.
  public enum Event: Sendable {
    /// An exchange ran (it may have found nothing to do: see ``SyncRunReport``).
    case exchanged(SyncRunReport)
    /// An exchange failed; the next is tried after `retryIn`.
    case failed(StashError, retryIn: Duration)
  }

  /// The device folder.
  public let home: String
  /// The shared folder (the one the folder's settings name when the watch started; a sync
  /// state written since names the current one).
  public let sharedFolder: String?
  /// How often the fingerprint is taken.
  public var interval: Duration
  /// The longest wait after failures.
  public var maximumBackoff: Duration = .seconds(60)
  /// Whether the app is in the background, where no exchange runs (as a ``SyncSession``'s
  /// passes wait there): the next tick after ``AppPhase/enterForeground()`` exchanges
  /// whatever changed meanwhile.
  public let phase = AppPhase()
  /// Whether to wait on file-system events where the platform has them (``FileEvents``);
  /// `false` polls alone, as on a platform without them.
  var usesFileEvents = true
  let fileSystem: any FileSystem

  /// A watch of the device folder `home` syncing with `sharedFolder`.
  ///
  /// - Parameters:
  ///   - home: The device folder.
  ///   - sharedFolder: Its shared folder (its settings' `cloudFolder`), `nil` when none is set.
  ///   - interval: How often to check for changes.
  ///   - fileSystem: The file-system seam.
  public init(
    home: String, sharedFolder: String?, interval: Duration = .seconds(1),
    fileSystem: any FileSystem = POSIXFileSystem()
  ) {
    self.home = home
    self.sharedFolder = sharedFolder
    self.interval = interval
    self.fileSystem = fileSystem
  }

  /// Runs until `stopped` says so (checked every 20 ms while waiting, and between exchanges:
  /// an exchange that started always finishes).
  ///
  /// - Parameters:
  ///   - exchange: One sync (such as ``SyncFolder/sync(at:registry:options:progress:)``).
  ///   - stopped: Whether to stop.
  ///   - tell: Told of each exchange and each failure.
  public func run(
    exchange: () throws(StashError) -> SyncRunReport, until stopped: () -> Bool,
    tell: (Event) -> Void
  ) {
    var last: [String]?
    var failures = 0
    let events = usesFileEvents ? FileEvents() : nil
    while !stopped() {
      if phase.isInBackground {
        pause(interval, until: stopped)
        continue
      }
      events?.watch(folders: watchedFolders(), files: storeFiles)
      let now = fingerprint()
      if now != last {
        do throws(StashError) {
          let report = try exchange()
          last = now
          failures = 0
          tell(.exchanged(report))
        } catch {
          failures += 1
          let wait = backoff(after: failures)
          tell(.failed(error, retryIn: wait))
          pause(wait, until: stopped)
          continue
        }
      }
      if let events {
        waitForEvents(events, upTo: interval, until: stopped)
        continue
      }
      pause(interval, until: stopped)
    }
  }

  /// Waits up to `duration` (the polling interval) for a file-system event in a watched
  /// folder, checking `stopped` every 20 ms; after an event, until 50 ms pass without
  /// another (at most 0.5 s), so that a burst of saves makes one exchange.
  private func waitForEvents(
    _ events: FileEvents, upTo duration: Duration, until stopped: () -> Bool
  ) {
    let end = ContinuousClock.now + duration
    while !stopped() && ContinuousClock.now < end {
      guard events.wait(milliseconds: 20) else { continue }
      let settled = ContinuousClock.now + .milliseconds(500)
      while !stopped() && ContinuousClock.now < settled && events.wait(milliseconds: 50) {}
      return
    }
  }

  /// The folders whose entries the fingerprint reads: the device folder, the shared folder,
  /// its device folders and its photos.
  func watchedFolders() -> [String] {
    let cloud = SyncSeal.read(home: home, fileSystem: fileSystem)?.cloud ?? sharedFolder
    guard let cloud else { return [home] }
    let devices = cloud + "/devices"
    let folders = (try? fileSystem.contentsOfDirectory(devices)) ?? []
    return [home, cloud, devices, cloud + "/blobs"] + folders.map { devices + "/" + $0 }
  }

  /// The two stores, which a sync reads and a save writes in place: where a platform's
  /// events on a folder do not cover its files written (kqueue's), they are watched too.
  var storeFiles: [String] {
    [LocalStore.fileName, MirrorStore.fileName].map { home + "/" + $0 }
  }

  /// The wait after `failures` failures in a row: the interval doubled each time, at least a
  /// second, at most ``maximumBackoff``.
  func backoff(after failures: Int) -> Duration {
    var wait = max(interval, .seconds(1))
    for _ in 1..<min(failures, 16) { wait *= 2 }
    return min(wait, maximumBackoff)
  }

  /// What a sync reads, by `stat` lines: both stores, then the shared folder (or that it
  /// cannot be listed).
  func fingerprint() -> [String] {
    var lines = [String]()
    for path in storeFiles {
      lines.append(SyncSeal.storeStat(path, fileSystem: fileSystem)?.line ?? "-")
    }
    let cloud = SyncSeal.read(home: home, fileSystem: fileSystem)?.cloud ?? sharedFolder
    guard let cloud else { return lines + ["no shared folder"] }
    return lines + (SyncSeal.sharedLines(cloud: cloud, fileSystem: fileSystem) ?? ["unreachable"])
  }

  private func pause(_ duration: Duration, until stopped: () -> Bool) {
    let end = ContinuousClock.now + duration
    while !stopped() && ContinuousClock.now < end {
      Thread.sleep(forTimeInterval: 0.02)
    }
  }
}

extension LiveSync {
  /// Runs the watch on a thread of its own until the task iterating the
  /// events is cancelled (or the sequence dropped): the live session an app keeps. The watch
  /// waits most of its life, so it holds no thread of ``StashIO``'s pool, which the `async`
  /// operations share: sessions that each held one could leave none for them.
  ///
  /// ```swift
  /// let live = LiveSync(home: home, sharedFolder: folder.settings.cloudFolder)
  /// for await event in live.events(exchange: { try SyncFolder.sync(at: home, registry: schemas) }) {
  ///   if case .failed(let error, _) = event { show(error) }
  /// }
  /// ```
  /// Each exchange is a sync of its own (its lock, its gate); an exchange under way when the
  /// task is cancelled finishes first.
  ///
  /// - Parameter exchange: One sync of the folder (called on the session's thread).
  /// - Returns: The events, as ``run(exchange:until:tell:)`` tells them.
  public func events(
    exchange: @escaping @Sendable () throws(StashError) -> SyncRunReport
  ) -> AsyncStream<Event> {
    let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    let stopped = StopFlag()
    continuation.onTermination = { _ in stopped.stop() }
    let thread = Thread {
      run(exchange: exchange, until: { stopped.isStopped }, tell: { continuation.yield($0) })
      continuation.finish()
    }
    thread.name = Self.threadName
    thread.start()
    return stream
  }

  /// The name of a live session's thread (for a debugger).
  static let threadName = "org.stash.live"
}

extension LiveSync {
  /// Whether an app is in the foreground or the background, set from any thread.
  public final class AppPhase: Sendable {
    private let background = Atomic<Bool>(false)

    /// In the foreground.
    public init() {}

    /// The app went to the background: no exchange starts until it comes back (one under
    /// way finishes).
    public func enterBackground() { background.store(true, ordering: .relaxed) }

    /// The app came to the foreground: the next tick exchanges what changed meanwhile.
    public func enterForeground() { background.store(false, ordering: .relaxed) }

    /// Whether the app is in the background.
    public var isInBackground: Bool { background.load(ordering: .relaxed) }
  }
}

/// A flag set once, from any thread.
final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)

  func stop() { flag.store(true, ordering: .relaxed) }

  var isStopped: Bool { flag.load(ordering: .relaxed) }
}

extension SyncRunReport {
  /// Whether the run moved or found anything a person watching should hear of: versions in
  /// or out, changes applied, conflicts, files waiting or rejected, a failure.
  public var movedAnything: Bool {
    versionsImported > 0 || versionsExported > 0 || appliedLocally > 0 || copiedToMirror > 0
      || !newConflicts.isEmpty || settledConflicts > 0 || !waiting.isEmpty
      || !rejectedSegments.isEmpty || passError != nil || exportError != nil
      || exportStopped != nil || !photosPublished.isEmpty
  }
}
