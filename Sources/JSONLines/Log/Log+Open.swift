import Foundation

/// What opening or catching up found after the last commit.
public struct TailReport: Hashable, Sendable, CustomStringConvertible {
  /// The log file.
  public let path: String
  /// Where the dropped bytes started (the end of the last commit).
  public let offset: Int64
  /// How many bytes were dropped.
  public let length: Int64
  /// The line number the dropped part started at.
  public let line: Int
  /// Why it was dropped: an uncommitted transaction, a torn line, a failed checksum.
  public let reason: String
  /// The side file the bytes were kept in, or `nil` when the log was opened without
  /// recovery (the bytes are then still in the file, ignored).
  public let keptAt: String?

  public var description: String {
    let kept = keptAt.map { "; they were kept in '\($0)'" } ?? "; they were ignored"
    return "Dropped \(length) bytes after the last commit of '\(path)' at line \(line) "
      + "(\(reason))\(kept)"
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
  /// A torn or uncommitted tail after the last commit is dropped: with `recoverTail` it is
  /// first written to a side file (`<path>.torn-<time>`) and then cut from the file; without,
  /// it is only ignored. Damage before the last commit throws ``LogError/damaged(path:line:reason:)``
  /// naming the first bad line, and nothing is changed.
  ///
  /// - Parameters:
  ///   - path: The log file.
  ///   - format: The expected `format` of the header.
  ///   - supportedVersion: The newest format version this code reads.
  ///   - recoverTail: Whether to keep aside and cut a torn tail (needs the folder's lock).
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
    let descriptor: FileDescriptor
    do {
      descriptor = try fileSystem.open(path, recoverTail ? .readWrite : .readOnly)
    } catch {
      throw error.code == ENOENT ? .missing(path) : .io(error.renamed(path))
    }
    var scanner = Scanner(path: path, start: 0, lastSequence: 0, lines: 0, expectsHeader: true)
    do throws(LogError) {
      try scanner.scan(descriptor, fileSystem: fileSystem) { (transaction) throws(LogError) in
        try apply(transaction)
      } header: { (header) throws(LogError) in
        guard header.format == format else {
          throw LogError.wrongFormat(path: path, found: header.format, expected: format)
        }
        guard header.version <= supportedVersion else {
          throw LogError.unsupportedVersion(
            path: path, found: header.version, supported: supportedVersion)
        }
        try readHeader(header)
      }
      guard let header = scanner.header else {
        throw LogError.damaged(
          path: path, line: 1, reason: scanner.firstBadReason ?? "it has no header line")
      }
      let log = Log(
        path: path, header: header, fileSystem: fileSystem, descriptor: descriptor,
        identity: try Log.identity(of: descriptor, path, fileSystem),
        committedEnd: scanner.committedEnd,
        lastSequence: scanner.lastSequence, committedLines: scanner.committedLines)
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
  ///   - recoverTail: Whether to keep aside and cut a torn tail left by a crashed writer.
  ///   - apply: Receives each new committed transaction.
  /// - Returns: Whether anything changed, or that the file must be opened again.
  /// - Throws: ``LogError``; ``LogError/missing(_:)`` when the file was removed.
  public func catchUp(
    recoverTail: Bool, apply: (Transaction) throws(LogError) -> Void
  ) throws(LogError) -> CatchUpResult {
    let onDisk: FileIdentity?
    do { onDisk = try fileSystem.identity(atPath: path) } catch { throw .io(error) }
    guard let onDisk else { throw .missing(path) }
    guard onDisk.isSameFile(as: identity) else { return .replaced }
    let size = try Log.identity(of: descriptor, path, fileSystem).size
    if size == committedEnd { return .current }
    if size < committedEnd { return .replaced }
    var scanner = Scanner(
      path: path, start: committedEnd, lastSequence: lastSequence, lines: committedLines,
      expectsHeader: false)
    var count = 0
    try scanner.scan(descriptor, fileSystem: fileSystem) { (transaction) throws(LogError) in
      count += 1
      try apply(transaction)
    }
    committedEnd = scanner.committedEnd
    lastSequence = scanner.lastSequence
    committedLines = scanner.committedLines
    let tail = try dropTail(scanner.tail, recover: recoverTail)
    return .advanced(transactions: count, tail: tail)
  }

  static func identity(
    of descriptor: FileDescriptor, _ path: String, _ fileSystem: any FileSystem
  ) throws(LogError) -> FileIdentity {
    do { return try fileSystem.identity(of: descriptor) } catch { throw .io(error.renamed(path)) }
  }

  /// Keeps a tail's bytes in a side file and cuts it from the log.
  private func dropTail(_ tail: Scanner.Tail?, recover: Bool) throws(LogError) -> TailReport? {
    guard let tail else { return nil }
    let length = tail.fileSize - committedEnd
    guard recover else {
      return TailReport(
        path: path, offset: committedEnd, length: length, line: tail.line, reason: tail.reason,
        keptAt: nil)
    }
    let sidePath = "\(path).torn-\(Int64(Date().timeIntervalSince1970 * 1000))-\(committedEnd)"
    do throws(FileSystemError) {
      let bytes = try fileSystem.read(descriptor, count: Int(length), at: committedEnd)
      try Log.writeReplacing(path: sidePath, bytes: bytes, fileSystem: fileSystem)
      try fileSystem.truncate(descriptor, to: committedEnd)
      try fileSystem.synchronize(descriptor)
    } catch {
      throw .io(error.renamed(path))
    }
    return TailReport(
      path: path, offset: committedEnd, length: length, line: tail.line, reason: tail.reason,
      keptAt: sidePath)
  }
}
