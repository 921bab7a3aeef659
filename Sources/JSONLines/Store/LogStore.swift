import StashBase
public import StashFiles
import StashModel
import Synchronization

/// A store kept in one log file: the content in memory, the file on disk, and the one way to
/// change both.
///
/// Reads come from memory (``content``). Every save runs under the folder's lock: it catches
/// up with what other processes committed, builds its changes against that fresh content,
/// writes them as one transaction (durable before it returns), and only then applies them in
/// memory. A failed write changes nothing, in memory or on disk.
///
/// Opened for reading (``StoreAccess/reading``), the store never changes its file until a save
/// has something to write: only then does it take write access, create a missing file, and
/// set aside what followed the last commit (telling ``observeTails(_:)``'s observers).
public final class LogStore<Content: LogContent>: Sendable {
  /// The store file.
  public let path: String
  /// The folder's lock.
  public let lock: FolderLock
  /// What decoding needs.
  public let context: Content.Context
  /// When the file is compacted.
  public let compaction: CompactionPolicy
  let fileSystem: any FileSystem
  let state: Mutex<State>
  let tailObservers = Mutex<[@Sendable (TailReport) -> Void]>([])

  /// The open file and the content replayed from it.
  ///
  /// `@unchecked Sendable` is sound here: a `State` exists only inside `state` (the `Mutex`),
  /// every access goes through `withLock`, and neither the `Log` nor the `State` is ever
  /// returned out of the critical section (only `Content` and other `Sendable` values are).
  @usableFromInline
  struct State: @unchecked Sendable {
    /// The file; `nil` while a store opened for reading has not created its missing file.
    var log: Log?
    var header: LogHeader
    var content: Content
    /// How to create the file at the first save, while `log` is `nil`.
    var creation: Creation?
    /// What follows the last commit while it is only ignored (opened for reading).
    var tail: TailReport?
    /// How many callers hold compaction off (``withRollback(_:)``).
    var compactionHolds = 0

    @usableFromInline
    init(
      log: Log?, header: LogHeader, content: Content, creation: Creation? = nil,
      tail: TailReport? = nil
    ) {
      self.log = log
      self.header = header
      self.content = content
      self.creation = creation
      self.tail = tail
    }
  }

  @usableFromInline
  init(
    path: String, lock: FolderLock, context: Content.Context, compaction: CompactionPolicy,
    fileSystem: any FileSystem, state: State
  ) {
    self.path = path
    self.lock = lock
    self.context = context
    self.compaction = compaction
    self.fileSystem = fileSystem
    self.state = Mutex(state)
  }

  /// Opens an existing store file, replaying its committed transactions.
  ///
  /// For writing, a tail after the last commit is kept in a side file and cut (under the
  /// lock); for reading, it is only reported. Damage before the last transaction, a newer version
  /// or another format throws, and nothing is changed.
  ///
  /// - Parameters:
  ///   - access: Reading (the file is left as it is until a save) or writing.
  ///   - compaction: When saves compact the file.
  /// - Returns: The store, and what followed the last commit, if anything.
  /// - Throws: ``LogError``.
  @inlinable  // with load(path:context:recover:fileSystem:): see StreamedReplay
  public static func open(
    path: String, lock: FolderLock, context: Content.Context, access: StoreAccess = .writing,
    compaction: CompactionPolicy = .standard, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> (store: LogStore, tail: TailReport?) {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let (log, loaded, tail) = try load(
      path: path, context: context, recover: access == .writing, fileSystem: fileSystem)
    var content = loaded
    if access == .writing, log.header.version < Content.version {
      try upgradeIfOlder(log, content: content, fileSystem: fileSystem)
      content.forgetLineSpans()
    }
    let state = State(
      log: log, header: log.header, content: content, tail: tail?.keptAt == nil ? tail : nil)
    return (
      LogStore(
        path: path, lock: lock, context: context, compaction: compaction,
        fileSystem: fileSystem, state: state),
      tail
    )
  }

  /// Creates a new store file with a header and a first transaction.
  ///
  /// - Throws: ``LogError/alreadyExists(_:)`` or ``LogError/io(_:)``.
  public static func create(
    path: String, header: LogHeader, initialChanges: [Content.Change], lock: FolderLock,
    context: Content.Context, compaction: CompactionPolicy = .standard,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> LogStore {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let log = try Log.create(at: path, header: header, fileSystem: fileSystem)
    try log.append(LogStore.operations(for: initialChanges))
    var content = Content(header: header, context: context)
    for change in initialChanges { content.apply(change) }
    return LogStore(
      path: path, lock: lock, context: context, compaction: compaction, fileSystem: fileSystem,
      state: State(log: log, header: header, content: content))
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
  /// create the file. Opened for reading, a missing file is not created now: the store starts
  /// with the creation's content in memory, and its first save creates the file (unless
  /// another process created it meanwhile: the store then reads that one).
  ///
  /// - Returns: The store, whether the file was created, and what followed the last commit.
  /// - Throws: ``LogError``: ``LogError/missing(_:)`` when the file is missing and `creation`
  ///   is `nil`; damaged, too new, busy, unreadable.
  @inlinable  // with open(path:lock:context:access:compaction:fileSystem:)
  public static func openOrCreate(
    path: String, lock: FolderLock, context: Content.Context, creation: Creation?,
    access: StoreAccess = .writing, compaction: CompactionPolicy = .standard,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> (store: LogStore, created: Bool, tail: TailReport?) {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let exists: Bool
    do { exists = try fileSystem.identity(atPath: path) != nil } catch { throw .io(error) }
    if let creation, !exists {
      guard access == .writing else {
        var content = Content(header: creation.header, context: context)
        for change in creation.initialChanges { content.apply(change) }
        let state = State(
          log: nil, header: creation.header, content: content, creation: creation)
        let store = LogStore(
          path: path, lock: lock, context: context, compaction: compaction,
          fileSystem: fileSystem, state: state)
        return (store, false, nil)
      }
      let store = try create(
        path: path, header: creation.header, initialChanges: creation.initialChanges,
        lock: lock, context: context, compaction: compaction, fileSystem: fileSystem)
      return (store, true, nil)
    }
    let (store, tail) = try open(
      path: path, lock: lock, context: context, access: access, compaction: compaction,
      fileSystem: fileSystem)
    return (store, false, tail)
  }

  /// The header of the file (or of the file the first save will create).
  public var header: LogHeader { state.withLock { $0.header } }

  /// Whether the file exists (`false` while a store opened for reading waits for its first
  /// save to create it).
  public var fileExists: Bool { state.withLock { $0.log != nil } }

  /// What follows the file's last commit while it is only ignored (opened for reading, until
  /// a save sets it aside), as of the last open or catch-up.
  public var ignoredTail: TailReport? { state.withLock { $0.tail } }

  /// Adds a function told about every tail this store sets aside from now on (at its first
  /// save when opened for reading, or one a crashed writer left), outside the store's locks.
  public func observeTails(_ observer: @escaping @Sendable (TailReport) -> Void) {
    tailObservers.withLock { $0.append(observer) }
  }

  /// Rewrites a file of an older format version in the current one (opened for writing, or
  /// at the first save of a store opened for reading: never by a reader).
  ///
  /// Its content was read through the same decoding as current files (each store reads the
  /// lines of every older version it knows), so the rewrite is a compaction with the new
  /// header. The old file is kept as `<file>.format-<old version>` (a second name of the same
  /// bytes, so nothing is copied) for a person to inspect or restore; a crash leaves the old
  /// file or the new one in place, and the next open upgrades again if needed.
  @usableFromInline
  static func upgradeIfOlder(
    _ log: Log, content: Content, fileSystem: any FileSystem
  ) throws(LogError) {
    guard log.header.version < Content.version else { return }
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
      to: LogStore.operations(for: content.changesForCompaction), header: header)
  }

  @inlinable  // compiled for each content, its lines are replayed specialized: see StreamedReplay
  static func load(
    path: String, context: Content.Context, recover: Bool, fileSystem: any FileSystem
  ) throws(LogError) -> (Log, Content, TailReport?) {
    var content: Content?
    var replay = StreamedReplay<Content>()
    let (log, tail) = try Log.open(
      at: path, format: Content.format, supportedVersion: Content.version, recoverTail: recover,
      fileSystem: fileSystem
    ) { (header) throws(LogError) in
      content = Content(header: header, context: context)
    } operation: { operation in
      replay.add(operation, decoder: content!)
    } commit: { (_) throws(LogError) in
      try replay.commit(into: &content!, path: path)
    } direct: { bytes, span in
      replay.addDirect(bytes, at: span, decoder: content!)
    }
    return (log, content!, tail)
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
