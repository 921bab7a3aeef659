import Foundation
public import StashFiles

/// What follows a log's last commit, when anything does.
///
/// Two kinds, told apart by the bytes alone (the rules are in one place, the scanner):
/// - ``Kind/torn``: the start of a transaction that was never committed, as a write that
///   stopped (a crash, a kill, a full disk) leaves it. It was never reported saved. Readers
///   ignore it; the next writer keeps it in `<file>.torn-<ms>-<offset>` and cuts it off.
/// - ``Kind/damaged``: complete lines that fail their checksum or do not fit, where a commit
///   should be, or under the valid commit that closes the last transaction (a power cut that
///   kept a save's later page and lost an earlier one). A stopped write cannot leave this; a
///   power cut or a changed byte can, and the transaction it hides may be one that was
///   reported saved. It is never dropped quietly: every command
///   warns about it, `stash doctor` counts it as damage, and it is set aside (in
///   `<file>.damaged-<ms>-<offset>`) only by a write that says so, or by `doctor --repair`.
public struct TailReport: Hashable, Sendable, CustomStringConvertible {
  /// What kind of tail this is.
  public enum Kind: String, Hashable, Sendable {
    /// An unfinished write: never committed, never reported saved.
    case torn
    /// Damage where the last commit should be, or under it: possibly a saved change.
    case damaged
  }

  /// The log file.
  public let path: String
  /// What kind of tail this is.
  public let kind: Kind
  /// Where the tail starts (the end of the last commit).
  public let offset: Int64
  /// How many bytes it holds.
  public let length: Int64
  /// The line number the tail starts at.
  public let line: Int
  /// What is wrong, naming the first bad line.
  public let reason: String
  /// The side file the bytes were moved to, or `nil` when the log was opened for reading (the
  /// bytes are then still in the file, ignored).
  public let keptAt: String?

  public var description: String {
    switch (kind, keptAt) {
    case (.torn, let kept?):
      return "Dropped an unfinished write of \(length) bytes after the last commit of "
        + "'\(path)' (\(reason)); it was kept in '\(kept)'"
    case (.torn, nil):
      return "'\(path)' ends with an unfinished write of \(length) bytes (\(reason)); it is "
        + "ignored, and the next save sets it aside"
    case (.damaged, let kept?):
      return "Set aside the damaged last transaction of '\(path)' (\(reason)) in '\(kept)'; "
        + "it may hold a change that was reported saved: look at it, and make that change "
        + "again if it is missing"
    case (.damaged, nil):
      return "The last transaction of '\(path)' is damaged (\(reason)); it is not shown, it "
        + "may hold a change that was reported saved, and the next save sets it aside; repair "
        + "the folder to set it aside now"
    }
  }
}

/// What ``Log/catchUp(recoverTail:apply:)`` found.
public enum CatchUpResult: Equatable, Sendable {
  /// Nothing new.
  case current
  /// New transactions by another process were applied.
  case advanced(transactions: Int, tail: TailReport?)
  /// The file was replaced or cut shorter (compaction, repair, or a rolled-back pass): the
  /// caller must open it again from the start.
  case replaced
}

extension Log {
  /// Opens an existing log and hands every committed transaction to `apply`, in order.
  ///
  /// What follows the last commit (a ``TailReport``) is never applied: with `recoverTail` the
  /// file is opened for writing and the tail is first written to a side file and then cut from
  /// the file; without, the file is opened read-only, nothing is changed, and the tail is only
  /// reported. Damage before the last transaction (see `Scanner`) throws
  /// ``LogError/damaged(path:line:reason:)`` naming the first bad line, and nothing is changed.
  ///
  /// - Parameters:
  ///   - path: The log file.
  ///   - format: The expected `format` of the header.
  ///   - supportedVersion: The newest format version this code reads.
  ///   - recoverTail: Whether to open for writing, and keep aside and cut a tail (needs the
  ///     folder's lock).
  ///   - fileSystem: The file-system seam.
  ///   - readHeader: Receives the header before any transaction.
  ///   - apply: Receives each committed transaction; it may throw to refuse one (the store
  ///     names the line).
  /// - Returns: The open log and the report of a dropped tail, if there was one.
  /// - Throws: ``LogError``.
  public static func open(
    at path: String, format: String, supportedVersion: Int, recoverTail: Bool,
    fileSystem: any FileSystem = POSIXFileSystem(),
    header readHeader: (LogHeader) throws(LogError) -> Void = { _ in },
    apply: (Transaction) throws(LogError) -> Void
  ) throws(LogError) -> (log: Log, tail: TailReport?) {
    var gathered = GatheredTransaction()
    return try open(
      at: path, format: format, supportedVersion: supportedVersion, recoverTail: recoverTail,
      fileSystem: fileSystem, header: readHeader
    ) { operation in
      gathered.add(operation)
    } commit: { (sequence) throws(LogError) in
      try apply(gathered.take(sequence))
    }
  }

  /// Opens an existing log as ``open(at:format:supportedVersion:recoverTail:fileSystem:header:apply:)``
  /// does, handing out each operation line as soon as it is read rather than each transaction
  /// whole: `operation` receives the lines of the transaction being read (which may never
  /// commit: those after the last `commit` call are a tail, to be dropped by the caller), and
  /// `commit` is called when the line that commits them is read. A transaction of any size
  /// is then held in whatever form the caller keeps, never as parsed lines.
  ///
  /// `direct` is offered each operation line of the transaction being read whose frame is
  /// exactly the writer's, with the bytes of its `op` object, before the line is parsed: it
  /// answers `true` when it read and kept the whole operation (which is then not handed to
  /// `operation`), `false` to have the line parsed as usual (issue 26, item 5).
  ///
  /// - Throws: ``LogError``.
  public static func open(
    at path: String, format: String, supportedVersion: Int, recoverTail: Bool,
    fileSystem: any FileSystem = POSIXFileSystem(),
    header readHeader: (LogHeader) throws(LogError) -> Void = { _ in },
    operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool = { _, _ in false }
  ) throws(LogError) -> (log: Log, tail: TailReport?) {
    let descriptor: FileDescriptor
    do {
      // Never wait in the open: a FIFO put where the store should be must not hang a reader.
      descriptor = try fileSystem.open(
        path, recoverTail ? .readWrite : .readOnly, options: .nonBlocking)
    } catch {
      throw error.code == ENOENT ? .missing(path) : .io(error.renamed(path))
    }
    do throws(LogError) {
      let kind = try Log.identity(of: descriptor, path, fileSystem).kind
      guard kind == .regular else {
        throw LogError.damaged(
          path: path, line: 1, reason: "it is not a regular file (a folder, a FIFO or a device)")
      }
    } catch {
      fileSystem.close(descriptor)
      throw error
    }
    var scanner = Scanner(path: path, start: 0, lastSequence: 0, lines: 0, expectsHeader: true)
    do throws(LogError) {
      try scanner.scan(descriptor, fileSystem: fileSystem) { (header) throws(LogError) in
        guard header.format == format else {
          throw LogError.wrongFormat(path: path, found: header.format, expected: format)
        }
        guard header.version <= supportedVersion else {
          throw LogError.unsupportedVersion(
            path: path, found: header.version, supported: supportedVersion)
        }
        try readHeader(header)
      } operation: { (line) throws(LogError) in
        try operation(line)
      } commit: { (sequence) throws(LogError) in
        try commit(sequence)
      } direct: { bytes, span in
        direct(bytes, span)
      }
      guard let header = scanner.header else {
        throw LogError.damaged(
          path: path, line: 1, reason: scanner.firstBadReason ?? "it has no header line")
      }
      let log = Log(
        path: path, header: header, fileSystem: fileSystem, descriptor: descriptor,
        identity: try Log.identity(of: descriptor, path, fileSystem),
        committedEnd: scanner.committedEnd,
        lastSequence: scanner.lastSequence, committedLines: scanner.committedLines,
        isWritable: recoverTail)
      log.lastCommit = scanner.lastCommit
      let tail = try log.dropTail(scanner.tail, recover: recoverTail)
      return (log, tail)
    } catch {
      fileSystem.close(descriptor)
      throw error
    }
  }

  /// Applies the transactions another process committed since this log was last read.
  ///
  /// Call it under the folder's lock before writing, so that a write never loses another
  /// process's update.
  ///
  /// - Parameters:
  ///   - recoverTail: Whether to keep aside and cut a tail (left by a crashed writer, or
  ///     damaged); the log must be writable. Without, a tail is only reported.
  ///   - apply: Receives each new committed transaction.
  /// - Returns: Whether anything changed, or that the file must be opened again.
  /// - Throws: ``LogError``; ``LogError/missing(_:)`` when the file was removed.
  public func catchUp(
    recoverTail: Bool, apply: (Transaction) throws(LogError) -> Void
  ) throws(LogError) -> CatchUpResult {
    var gathered = GatheredTransaction()
    return try catchUp(recoverTail: recoverTail) { operation in
      gathered.add(operation)
    } commit: { (sequence) throws(LogError) in
      try apply(gathered.take(sequence))
    }
  }

  /// ``catchUp(recoverTail:apply:)``, handing out each operation line as soon as it is read
  /// and each commit (and offering it to `direct` first), as
  /// ``open(at:format:supportedVersion:recoverTail:fileSystem:header:operation:commit:direct:)``
  /// does.
  ///
  /// - Returns: Whether anything changed, or that the file must be opened again.
  /// - Throws: ``LogError``; ``LogError/missing(_:)`` when the file was removed.
  public func catchUp(
    recoverTail: Bool, operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool = { _, _ in false }
  ) throws(LogError) -> CatchUpResult {
    let onDisk: FileIdentity?
    do { onDisk = try fileSystem.identity(atPath: path) } catch { throw .io(error) }
    guard let onDisk else { throw .missing(path) }
    guard onDisk.isSameFile(as: identity) else { return .replaced }
    let size = try Log.identity(of: descriptor, path, fileSystem).size
    if size == committedEnd { return .current }
    if size < committedEnd { return .replaced }
    if recoverTail { try prepareToWrite() }
    var scanner = Scanner(
      path: path, start: committedEnd, lastSequence: lastSequence, lines: committedLines,
      expectsHeader: false)
    var count = 0
    try scanner.scan(descriptor, fileSystem: fileSystem, operation: operation) {
      (sequence) throws(LogError) in
      count += 1
      try commit(sequence)
    } direct: { bytes, span in
      direct(bytes, span)
    }
    committedEnd = scanner.committedEnd
    lastSequence = scanner.lastSequence
    committedLines = scanner.committedLines
    if let last = scanner.lastCommit { lastCommit = last }
    let tail = try dropTail(scanner.tail, recover: recoverTail)
    return .advanced(transactions: count, tail: tail)
  }

  static func identity(
    of descriptor: FileDescriptor, _ path: String, _ fileSystem: any FileSystem
  ) throws(LogError) -> FileIdentity {
    do { return try fileSystem.identity(of: descriptor) } catch { throw .io(error.renamed(path)) }
  }

  /// Keeps a tail's bytes in a side file and cuts it from the log.
  func dropTail(_ tail: Scanner.Tail?, recover: Bool) throws(LogError) -> TailReport? {
    guard let tail else { return nil }
    let length = tail.fileSize - committedEnd
    guard recover else {
      return TailReport(
        path: path, kind: tail.kind, offset: committedEnd, length: length, line: tail.line,
        reason: tail.reason, keptAt: nil)
    }
    let time = Int64(Date().timeIntervalSince1970 * 1000)
    let sidePath = "\(path).\(tail.kind.rawValue)-\(time)-\(committedEnd)"
    do throws(FileSystemError) {
      try copyTail(from: committedEnd, length: length, to: sidePath)
    } catch {
      throw .io(error.renamed(path))
    }
    try withdraw()
    return TailReport(
      path: path, kind: tail.kind, offset: committedEnd, length: length, line: tail.line,
      reason: tail.reason, keptAt: sidePath)
  }

  /// Copies `length` bytes from `offset` to a new file at `destination`, a chunk at a time (a
  /// tail may be as large as the disk), through a synchronized temporary file.
  private func copyTail(
    from offset: Int64, length: Int64, to destination: String
  ) throws(FileSystemError) {
    let temporary = TemporaryName.path(for: destination)
    try fileSystem.removeFile(temporary)
    let copy = try fileSystem.open(temporary, .createNew)
    do throws(FileSystemError) {
      var done: Int64 = 0
      while done < length {
        let count = Int(min(Int64(1 << 20), length - done))
        let bytes = try fileSystem.read(descriptor, count: count, at: offset + done)
        guard !bytes.isEmpty else { break }
        try fileSystem.write(copy, bytes, at: done)
        done += Int64(bytes.count)
      }
      try fileSystem.synchronize(copy)
    } catch {
      fileSystem.close(copy)
      try? fileSystem.removeFile(temporary)
      throw error
    }
    fileSystem.close(copy)
    do throws(FileSystemError) {
      try fileSystem.rename(temporary, to: destination)
    } catch {
      try? fileSystem.removeFile(temporary)
      throw error
    }
    try fileSystem.synchronizeDirectory(parentPath(of: destination))
  }
}
