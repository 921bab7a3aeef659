public import StashFiles
import StashModel
import Synchronization

extension LogStore {
  /// Opens an existing store file from a known prefix (an index beside it), replaying only
  /// the transactions after the prefix.
  ///
  /// The prefix is checked against the file first (``LogPrefix``); `content` builds the
  /// state of the prefix, given the transactions that follow it (applied after it returns) (usually only the few records a command needs, read through
  /// ``Log/operation(at:)``, each line checksum-verified and decoded as on a full open). Such
  /// a content says it is not complete (``LogContent/isComplete``): the store then never
  /// compacts or upgrades from it, and reads the whole file before it would.
  ///
  /// - Returns: `nil` when the prefix does not describe the file, or `content` declines:
  ///   open the file in full with ``open(path:lock:context:access:compaction:fileSystem:)``.
  /// - Throws: ``LogError`` for damage after the prefix, a busy lock, an unreadable file.
  public static func open(
    path: String, resuming prefix: LogPrefix, lock: FolderLock, context: Content.Context,
    access: StoreAccess = .writing, compaction: CompactionPolicy = .standard,
    fileSystem: any FileSystem = POSIXFileSystem(),
    content: (LogHeader, Log, [Transaction]) -> Content?
  ) throws(LogError) -> (store: LogStore, tail: TailReport?)? {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let opened = try Log.open(
      at: path, resuming: prefix, format: Content.format, supportedVersion: Content.version,
      recoverTail: access == .writing, fileSystem: fileSystem, content: content
    ) { (state: inout Content, transaction) throws(LogError) in
      try replay(transaction, into: &state, path: path)
    }
    guard let (log, content, tail) = opened else { return nil }
    let state = State(
      log: log, header: log.header, content: content, tail: tail?.keptAt == nil ? tail : nil)
    return (
      LogStore(
        path: path, lock: lock, context: context, compaction: compaction,
        fileSystem: fileSystem, state: state),
      tail
    )
  }

  /// Runs `body` with the open log and the content while holding the state's mutex (the
  /// caller holds the folder's lock, or accepts that the file may have grown since: a
  /// description of the log stays true of its prefix).
  ///
  /// - Returns: What `body` returns; `nil` while the file does not exist yet.
  public func withLog<T: Sendable>(_ body: (Log, Content) -> T) -> T? {
    state.withLock { state -> T? in
      guard let log = state.log else { return nil }
      return body(log, state.content)
    }
  }
}
