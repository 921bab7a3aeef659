import StashModel
import Synchronization

/// A store kept in one log file: the content in memory, the file on disk, and the one way to
/// change both.
///
/// Reads come from memory (``content``). Every save runs under the folder's lock: it catches
/// up with what other processes committed, builds its changes against that fresh content,
/// writes them as one transaction (durable before it returns), and only then applies them in
/// memory. A failed write changes nothing, in memory or on disk.
public final class LogStore<Content: LogContent>: Sendable {
  /// The store file.
  public let path: String
  /// The folder's lock.
  public let lock: FolderLock
  /// What decoding needs.
  public let context: Content.Context
  private let fileSystem: any FileSystem
  private let state: Mutex<State>

  /// The open file and the content replayed from it.
  ///
  /// `@unchecked Sendable` is sound here: a `State` exists only inside `state` (the `Mutex`),
  /// every access goes through `withLock`, and neither the `Log` nor the `State` is ever
  /// returned out of the critical section (only `Content`, a `Sendable` value, is).
  private struct State: @unchecked Sendable {
    var log: Log
    var content: Content
  }

  private init(
    path: String, lock: FolderLock, context: Content.Context, fileSystem: any FileSystem,
    log: Log, content: Content
  ) {
    self.path = path
    self.lock = lock
    self.context = context
    self.fileSystem = fileSystem
    self.state = Mutex(State(log: log, content: content))
  }

  /// Opens an existing store file, replaying its committed transactions.
  ///
  /// A torn tail is kept in a side file and cut (under the lock). Damage before the last
  /// commit, a newer version or another format throws, and nothing is changed.
  ///
  /// - Returns: The store, and the report of a dropped tail, if any.
  /// - Throws: ``LogError``.
  public static func open(
    path: String, lock: FolderLock, context: Content.Context,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> (store: LogStore, tail: TailReport?) {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let (log, content, tail) = try load(path: path, context: context, fileSystem: fileSystem)
    if log.header.version < Content.version {
      try upgrade(log, content: content, fileSystem: fileSystem)
    }
    return (
      LogStore(
        path: path, lock: lock, context: context, fileSystem: fileSystem, log: log,
        content: content),
      tail
    )
  }

  /// Creates a new store file with a header and a first transaction.
  ///
  /// - Throws: ``LogError/alreadyExists(_:)`` or ``LogError/io(_:)``.
  public static func create(
    path: String, header: LogHeader, initialChanges: [Content.Change], lock: FolderLock,
    context: Content.Context, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> LogStore {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let log = try Log.create(at: path, header: header, fileSystem: fileSystem)
    try log.append(initialChanges.map(Content.operation(for:)))
    var content = Content(header: header, context: context)
    for change in initialChanges { content.apply(change) }
    return LogStore(
      path: path, lock: lock, context: context, fileSystem: fileSystem, log: log,
      content: content)
  }

  /// How a missing store file is created: its header and its first transaction.
  public struct Creation: Sendable {
    /// The new file's header.
    public var header: LogHeader
    /// The changes of its first transaction (none for an empty store).
    public var initialChanges: [Content.Change]

    /// Describes a new store file.
    public init(header: LogHeader, initialChanges: [Content.Change] = []) {
      self.header = header
      self.initialChanges = initialChanges
    }
  }

  /// Opens the store file at `path`, or creates it when it is missing and `creation` says how.
  ///
  /// The check and the creation happen under the folder's lock, so two processes never both
  /// create the file.
  ///
  /// - Returns: The store, whether it was created, and the report of a dropped tail, if any.
  /// - Throws: ``LogError``: ``LogError/missing(_:)`` when the file is missing and `creation`
  ///   is `nil`; damaged, too new, busy, unreadable.
  public static func openOrCreate(
    path: String, lock: FolderLock, context: Content.Context, creation: Creation?,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> (store: LogStore, created: Bool, tail: TailReport?) {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let exists: Bool
    do { exists = try fileSystem.identity(atPath: path) != nil } catch { throw .io(error) }
    if let creation, !exists {
      let store = try create(
        path: path, header: creation.header, initialChanges: creation.initialChanges,
        lock: lock, context: context, fileSystem: fileSystem)
      return (store, true, nil)
    }
    let (store, tail) = try open(path: path, lock: lock, context: context, fileSystem: fileSystem)
    return (store, false, tail)
  }

  /// A copy of the content (cheap: its collections are shared until changed).
  public var content: Content { state.withLock { $0.content } }

  /// The header of the file.
  public var header: LogHeader { state.withLock { $0.log.header } }

  /// Saves the changes `body` returns, built against the freshest content.
  ///
  /// `body` runs while this process holds the folder's lock (so no other writer, in this
  /// process or another, can change the file meanwhile) but not the in-memory state's mutex,
  /// so it may read ``content``.
  ///
  /// - Parameter body: Reads the fresh content and returns a result and the changes to save.
  ///   If it throws, nothing is written.
  /// - Returns: What `body` returned, and the changes that were saved.
  /// - Throws: What `body` throws, or ``LogStoreError``.
  public func update<T>(
    _ body: (Content) throws -> (T, [Content.Change])
  ) throws -> (result: T, changes: [Content.Change]) {
    let proof = try acquireFresh()
    defer { lock.release(proof) }
    let (result, changes) = try body(content)
    guard !changes.isEmpty else { return (result, changes) }
    try state.withLock { (state) throws(LogStoreError) in
      do throws(LogError) {
        try state.log.append(changes.map(Content.operation(for:)))
      } catch {
        throw .write(error)
      }
      for change in changes { state.content.apply(change) }
      compactIfWorthIt(&state)
    }
    return (result, changes)
  }

  /// Catches up with what other processes committed.
  ///
  /// - Throws: ``LogStoreError/read(_:)``.
  public func refresh() throws(LogStoreError) {
    lock.release(try acquireFresh())
  }

  /// Rewrites the file to hold only the live state.
  ///
  /// - Throws: ``LogStoreError``; after a failed write the old file is untouched.
  public func compact() throws(LogStoreError) {
    let proof = try acquireFresh()
    defer { lock.release(proof) }
    try state.withLock { (state) throws(LogStoreError) in
      do throws(LogError) {
        try state.log.compact(to: state.content.changesForCompaction.map(Content.operation(for:)))
      } catch {
        throw .write(error)
      }
    }
  }

  /// The end of the committed file, to return to with ``rollBack(to:)``.
  public var mark: Log.Mark { state.withLock { $0.log.mark } }

  /// Removes the transactions saved after `mark` and reads the file again.
  ///
  /// The reconciler uses it when the second store's write of a pass fails, so that a thrown
  /// pass leaves both stores as they were.
  ///
  /// - Throws: ``LogStoreError``.
  public func rollBack(to mark: Log.Mark) throws(LogStoreError) {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw .read(error) }
    defer { lock.release(proof) }
    try state.withLock { (state) throws(LogStoreError) in
      do throws(LogError) {
        try state.log.undo(to: mark)
        let (log, content, _) = try LogStore.load(
          path: path, context: context, fileSystem: fileSystem)
        state.log = log
        state.content = content
      } catch {
        throw .write(error)
      }
    }
  }

  /// Takes the folder's lock and catches up with the file; the caller releases the lock.
  ///
  /// Every change to the in-memory state happens under the folder's lock, which also
  /// serializes this process's threads; the mutex only guards each short step against
  /// readers of ``content``.
  ///
  /// - Throws: ``LogStoreError/read(_:)`` when the lock cannot be taken or catching up fails.
  private func acquireFresh() throws(LogStoreError) -> FolderLock.Held {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw .read(error) }
    do {
      try state.withLock { (state) throws(LogError) in try catchUp(&state) }
    } catch {
      lock.release(proof)
      throw .read(error)
    }
    return proof
  }

  private func catchUp(_ state: inout State) throws(LogError) {
    var content = state.content
    let result = try state.log.catchUp(recoverTail: true) { (transaction) throws(LogError) in
      try LogStore.replay(transaction, into: &content, path: path)
    }
    switch result {
    case .current:
      return
    case .advanced:
      state.content = content
    case .replaced:
      let (log, fresh, _) = try LogStore.load(path: path, context: context, fileSystem: fileSystem)
      state.log = log
      state.content = fresh
    }
  }

  /// Compacts when most of the file is history: more than twice the live lines, and at least
  /// a few thousand lines, so that small stores are not rewritten on every save. A failed
  /// compaction leaves the (valid) old file and is tried again on a later save.
  private func compactIfWorthIt(_ state: inout State) {
    guard state.log.committedLines > 2 * state.content.liveChangeCount + 4096 else { return }
    try? state.log.compact(to: state.content.changesForCompaction.map(Content.operation(for:)))
  }

  /// Rewrites a file of an older format version in the current one.
  ///
  /// Its content was read through the same decoding as current files (each store reads the
  /// lines of every older version it knows), so the rewrite is a compaction with the new
  /// header. The old file is kept as `<file>.format-<old version>` (a second name of the same
  /// bytes, so nothing is copied) for a person to inspect or restore; a crash leaves the old
  /// file or the new one in place, and the next open upgrades again if needed.
  private static func upgrade(
    _ log: Log, content: Content, fileSystem: any FileSystem
  ) throws(LogError) {
    var header = log.header
    let old = header.version
    header.version = Content.version
    let kept = "\(log.path).format-\(old)"
    do throws(FileSystemError) {
      if try fileSystem.identity(atPath: kept, followingLinks: false) == nil {
        try fileSystem.link(log.path, to: kept)
      }
    } catch {
      throw .io(error)
    }
    try log.compact(
      to: content.changesForCompaction.map(Content.operation(for:)), header: header)
  }

  private static func load(
    path: String, context: Content.Context, fileSystem: any FileSystem
  ) throws(LogError) -> (Log, Content, TailReport?) {
    var content: Content?
    let (log, tail) = try Log.open(
      at: path, format: Content.format, supportedVersion: Content.version, recoverTail: true,
      fileSystem: fileSystem
    ) { (header) throws(LogError) in
      content = Content(header: header, context: context)
    } apply: { (transaction) throws(LogError) in
      try replay(transaction, into: &content!, path: path)
    }
    return (log, content!, tail)
  }

  private static func replay(
    _ transaction: Transaction, into content: inout Content, path: String
  ) throws(LogError) {
    for operation in transaction.operations {
      let change: Content.Change
      do {
        change = try content.change(from: operation.object)
      } catch {
        throw .damaged(path: path, line: operation.line, reason: error.message)
      }
      content.apply(change)
    }
  }
}

/// Why a ``LogStore`` could not catch up or save.
public enum LogStoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Catching up with the file failed (damaged, busy, removed, unreadable).
  case read(LogError)
  /// Writing failed; nothing was saved and the store is as it was.
  case write(LogError)

  /// The underlying log error.
  public var logError: LogError {
    switch self {
    case .read(let error), .write(let error): error
    }
  }

  public var description: String { logError.description }
}
