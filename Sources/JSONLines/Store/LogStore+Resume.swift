public import StashFiles
import StashModel
import Synchronization

extension LogStore {
  /// Opens an existing store file from a known prefix (an index beside it), replaying only
  /// the transactions after the prefix.
  ///
  /// The prefix is checked against the file first (``LogPrefix``); `content` builds the
  /// state of the prefix, given the changes of the transactions that follow it (applied after
  /// it returns), usually only the few records a command needs, read through
  /// ``Log/operation(at:)``, each line checksum-verified and decoded as on a full open. Such
  /// a content says it is not complete (``LogContent/isComplete``): the store then never
  /// compacts or upgrades from it, and reads the whole file before it would. The lines after
  /// the prefix are decoded once, as a full open decodes them: straight from their bytes when
  /// they are in the form their writer gives them (they were parsed into trees and decoded
  /// twice, for `content` and for the replay: most of what `show` cost after a few hundred
  /// saves since the index).
  ///
  /// - Returns: `nil` when the prefix does not describe the file, or `content` declines:
  ///   open the file in full with ``open(path:lock:context:access:compaction:fileSystem:)``.
  /// - Throws: ``LogError`` for damage after the prefix, a busy lock, an unreadable file.
  @inlinable  // with readTail: see StreamedReplay
  public static func open(
    path: String, resuming prefix: LogPrefix, lock: FolderLock, context: Content.Context,
    access: StoreAccess = .writing, compaction: CompactionPolicy = .standard,
    fileSystem: any FileSystem = POSIXFileSystem(),
    content: (LogHeader, Log, [Content.Change]) -> Content?
  ) throws(LogError) -> (store: LogStore, tail: TailReport?)? {
    let proof = try lock.acquire()
    defer { lock.release(proof) }
    let opened = try readTail(
      path: path, resuming: prefix, context: context, recover: access == .writing,
      fileSystem: fileSystem
    ) { header, log, transactions throws(LogError) -> Content? in
      guard var state = content(header, log, transactions.flatMap(\.changes)) else { return nil }
      for index in transactions.indices { try transactions[index].apply(to: &state, path: path) }
      return state
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

  /// The changes committed after `prefix` in the store file at `path`, each decoded as a full
  /// open decodes it (what changed since a sync sealed the store), without taking the folder's
  /// lock (its caller holds it); `nil` when the prefix does not describe the file, or a line
  /// after it does not decode.
  ///
  /// - Returns: The changes, and what follows the last commit (a full open sets it aside).
  /// - Throws: ``LogError`` for damage after the prefix or an unreadable file.
  @inlinable  // with readTail: see StreamedReplay
  public static func changes(
    path: String, after prefix: LogPrefix, context: Content.Context,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> (changes: [Content.Change], tail: TailReport?)? {
    let read = try readTail(
      path: path, resuming: prefix, context: context, recover: false, fileSystem: fileSystem
    ) { _, _, transactions throws(LogError) -> [Content.Change]? in
      var changes = [Content.Change]()
      for transaction in transactions {
        let decoded = transaction.changes
        guard decoded.count == transaction.count else { return nil }
        changes += decoded
      }
      return changes
    }
    return read.map { ($0.state, $0.tail) }
  }

  /// Opens the log at `path` from `prefix` (``Log/open(at:resuming:format:supportedVersion:recoverTail:fileSystem:header:operation:commit:direct:content:)``),
  /// the transactions after it decoded once (straight from their bytes when they can be), and
  /// hands them to `body` with the header and the log.
  @inlinable
  static func readTail<State>(
    path: String, resuming prefix: LogPrefix, context: Content.Context, recover: Bool,
    fileSystem: any FileSystem,
    _ body: (LogHeader, Log, inout [DecodedTransaction<Content>]) throws(LogError) -> State?
  ) throws(LogError) -> (log: Log, state: State, tail: TailReport?)? {
    var decoder: Content?
    var replay = StreamedReplay<Content>()
    var transactions = [DecodedTransaction<Content>]()
    return try Log.open(
      at: path, resuming: prefix, format: Content.format, supportedVersion: Content.version,
      recoverTail: recover, fileSystem: fileSystem
    ) { header in
      decoder = Content(header: header, context: context)
    } operation: { operation in
      replay.add(operation, decoder: decoder!)
    } commit: { _ in
      transactions.append(replay.take(decoder: decoder!))
    } direct: { bytes, span in
      replay.addDirect(bytes, at: span, decoder: decoder!)
    } content: { (header, log) throws(LogError) -> State? in
      try body(header, log, &transactions)
    }
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
