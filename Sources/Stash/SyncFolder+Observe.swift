import LocalStore
import StashBase
import StashFiles
import StashModel
import Synchronization

extension SyncFolder {
  /// The changes of this folder, as they happen, until the task that iterates is cancelled
  /// (or the sequence is dropped).
  ///
  /// ```swift
  /// for await change in folder.changes() {
  ///   if !change.keys.isEmpty { reload() }
  /// }
  /// ```
  /// It tells records saved through this folder (``FolderChange/saved(_:)``), applied by a
  /// sync it ran (``FolderChange/applied(_:)``), saved by another process or another
  /// ``SyncFolder`` on the same folder (``FolderChange/savedElsewhere(_:)``), conflicts opened
  /// and settled, and each sync's end (``FolderChange/synced(_:)``). Each change of a record
  /// is told once.
  ///
  /// Saves in this process are told at once, on the saving thread's return. What another
  /// process saved (since this folder read its store, or since the last poll) is found by
  /// polling: every `interval`, the local store's file is
  /// `stat`ed (one system call, on ``StashIO``'s threads, no lock taken) and, only when it
  /// changed, read again from where this folder's copy ends; the records that changed are
  /// then found by comparing the two copies.
  ///
  /// - Parameter interval: How often the store file is checked for another process's saves.
  /// - Returns: The changes; empty (and finished) for a folder without a store.
  public func changes(polling interval: Duration = .seconds(1)) -> AsyncStream<FolderChange> {
    let (stream, continuation) = AsyncStream.makeStream(of: FolderChange.self)
    guard let local else {
      continuation.finish()
      return stream
    }
    let hub = changeHub
    let watcher = ChangeWatcher(
      local: local, path: home + "/" + LocalStore.fileName, fileSystem: fileSystem,
      continuation: continuation, ownWriteUnderWay: { [weak hub] in hub?.isWriting ?? false })
    let id = hub.add(watcher, observing: local)
    let poller = Task.detached {
      while !Task.isCancelled {
        do { try await Task.sleep(for: interval) } catch { break }
        try? await StashIO.run { watcher.poll() }
      }
    }
    continuation.onTermination = { _ in
      poller.cancel()
      hub.remove(id)
    }
    return stream
  }
}

/// The observers of one folder: forwards the local store's saves (and a sync's end) to each
/// sequence ``SyncFolder/changes(polling:)`` handed out.
final class ChangeHub: Sendable {
  private struct State {
    var attached = false
    var watchers: [Int: ChangeWatcher] = [:]
    var next = 0
    var writes = 0
  }
  private let state = Mutex(State())

  /// Adds a watcher; the first one makes the hub observe `local`'s saves (for good: the
  /// store's observers cannot be removed, so the hub stays the only one).
  func add(_ watcher: ChangeWatcher, observing local: LocalStore) -> Int {
    let (id, attach) = state.withLock { state in
      let id = state.next
      state.next += 1
      state.watchers[id] = watcher
      defer { state.attached = true }
      return (id, !state.attached)
    }
    if attach {
      local.observeSaves { [weak self] notice in
        guard let self else { return }
        for watcher in self.watchers { watcher.catchUp(after: notice) }
      }
    }
    return id
  }

  /// A save or sync of this process starts: until it ends (its observers told), what a poll
  /// finds is not told as another process's.
  func beginWrite() { state.withLock { $0.writes += 1 } }

  /// A save or sync of this process ended.
  func endWrite() { state.withLock { $0.writes -= 1 } }

  /// Whether a save or sync of this process is under way.
  var isWriting: Bool { state.withLock { $0.writes > 0 } }

  /// Removes a watcher whose sequence ended.
  func remove(_ id: Int) { _ = state.withLock { $0.watchers.removeValue(forKey: id) } }

  /// Tells every watcher `change`.
  func post(_ change: FolderChange) {
    for watcher in watchers { watcher.yield(change) }
  }

  private var watchers: [ChangeWatcher] {
    state.withLock { $0.watchers.sorted { $0.key < $1.key }.map(\.value) }
  }
}

/// One sequence's view of the local store: the copy it last told, and the store file as it
/// was when that copy was read.
final class ChangeWatcher: Sendable {
  private struct Seen {
    var content: LocalContent
    var identity: FileIdentity?
    var problem: StashError?
  }
  private let seen: Mutex<Seen>
  private let local: LocalStore
  private let path: String
  private let fileSystem: any FileSystem
  private let continuation: AsyncStream<FolderChange>.Continuation
  private let ownWriteUnderWay: @Sendable () -> Bool

  init(
    local: LocalStore, path: String, fileSystem: any FileSystem,
    continuation: AsyncStream<FolderChange>.Continuation,
    ownWriteUnderWay: @escaping @Sendable () -> Bool
  ) {
    self.ownWriteUnderWay = ownWriteUnderWay
    self.local = local
    self.path = path
    self.fileSystem = fileSystem
    self.continuation = continuation
    // The file as of the folder's copy is not known: the first poll reads the store again,
    // and tells what another process saved since this folder read it.
    seen = Mutex(Seen(content: local.content, identity: nil))
  }

  func yield(_ change: FolderChange) { continuation.yield(change) }

  /// Reads the store again when its file changed since it was last read, and tells what
  /// changed. A busy folder is tried again at the next poll; a store that cannot be read is
  /// told once (until it can be read again).
  func poll() {
    guard !ownWriteUnderWay(), let identity = try? fileSystem.identity(atPath: path),
      identity != seen.withLock({ $0.identity })
    else { return }
    do {
      try local.refresh()
    } catch {
      let problem = StashError(error)
      guard problem.category != .busy else { return }
      let isNew = seen.withLock { seen in
        defer { seen.problem = problem }
        return seen.problem != problem
      }
      if isNew { continuation.yield(.unreadable(problem)) }
      return
    }
    catchUp(after: nil, identity: identity)
  }

  /// Tells what changed since the copy last told: the keys `notice` names as this process's
  /// saves, every other change as another's.
  func catchUp(after notice: LocalStore.SaveNotice?, identity: FileIdentity? = nil) {
    seen.withLock { seen in
      // A save of this process may have committed without its observers told yet: its
      // changes are told by its notice, and the poll looks again at the next tick.
      if notice == nil && ownWriteUnderWay() { return }
      let now = local.content
      let change = ContentChange(from: seen.content, to: now)
      seen.content = now
      seen.problem = nil
      if let identity { seen.identity = identity }
      if let notice {
        let mine = change.keys.intersection(notice.keys)
        if !mine.isEmpty {
          continuation.yield(notice.origin == .user ? .saved(mine) : .applied(mine))
        }
        let others = change.keys.subtracting(notice.keys)
        if !others.isEmpty { continuation.yield(.savedElsewhere(others)) }
      } else if !change.keys.isEmpty {
        continuation.yield(.savedElsewhere(change.keys))
      }
      if !change.opened.isEmpty { continuation.yield(.conflictsOpened(change.opened)) }
      if !change.settled.isEmpty { continuation.yield(.conflictsSettled(change.settled)) }
    }
  }
}

/// What differs between two copies of the local store: the records whose rows or tombstones
/// changed, and the conflicts opened and settled.
struct ContentChange {
  var keys: Set<RecordKey> = []
  var opened: [SyncConflict] = []
  var settled: [SyncConflict] = []

  init(from old: LocalContent, to new: LocalContent) {
    for (id, row) in new.rows where old.rows[id]?.hash != row.hash {
      keys.insert(row.record.key)
    }
    for (id, row) in old.rows where new.rows[id] == nil { keys.insert(row.record.key) }
    for (key, tombstone) in new.tombstones where old.tombstones[key] != tombstone {
      keys.insert(key)
    }
    for key in old.tombstones.keys where new.tombstones[key] == nil { keys.insert(key) }
    for (id, conflict) in new.conflicts {
      let wasOpen = old.conflicts[id]?.state == .open
      if conflict.state == .open && !wasOpen { opened.append(conflict) }
      if conflict.state != .open && wasOpen { settled.append(conflict) }
    }
    let order: (SyncConflict, SyncConflict) -> Bool = {
      ($0.noticedAt, $0.id) < ($1.noticedAt, $1.id)
    }
    opened.sort(by: order)
    settled.sort(by: order)
  }
}
