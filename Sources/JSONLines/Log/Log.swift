import Foundation
public import StashBase
public import StashFiles
import StashModel

/// A durable JSON-lines transaction log: one store file.
///
/// ```
/// {"crc":"…","header":{"format":"stash.local","version":1,"store":"…","device":"…","created":…}}
/// {"crc":"…","tx":1,"op":{…}}
/// {"crc":"…","tx":1,"op":{…}}
/// {"crc":"…","tx":1,"commit":2}
/// ```
/// Only committed transactions count. ``append(_:)`` returns after the transaction is on
/// stable storage. Opening ignores what follows the last commit (a torn write, or a damaged
/// last transaction, see ``TailReport``), or keeps it in a side file and cuts it when opened
/// for writing; it refuses a file with damage before its last transaction.
///
/// A failed write or fsync is final: the log does not write on as if the bytes before were
/// durable. It cuts its own partial bytes off again, and before its next write it opens the
/// file anew and checks every committed line (a failed fsync may have dropped pages that the
/// kernel then reports clean, so the old descriptor is not trusted).
///
/// A `Log` is not thread-safe and assumes its caller holds the folder's ``FolderLock`` around
/// every call that reads or writes the file; the stores do both.
public final class Log {
  /// The file's path.
  public let path: String
  /// The header line.
  public internal(set) var header: LogHeader
  /// The byte length of the committed part of the file.
  public internal(set) var committedEnd: Int64
  /// The number of the last committed transaction (0 when there is none).
  public internal(set) var lastSequence: Int64
  /// Whether the file is open for writing (a log opened for reading never changes it, until
  /// ``makeWritable()``).
  public internal(set) var isWritable: Bool
  /// Whether a write or fsync failed since the file was last checked: the next write first
  /// opens the file again and checks its committed part.
  public internal(set) var needsReopening = false

  let fileSystem: any FileSystem
  var descriptor: FileDescriptor
  var identity: FileIdentity
  /// Which generation of the file this is: new for every open log and every compaction, so
  /// that a ``Mark`` is never used on another file than its own.
  var generation = Log.nextGeneration()
  /// The number of lines in the committed part (the header is line 1).
  public internal(set) var committedLines: Int
  /// The last line of the committed part (the last commit, or the header), when this log
  /// knows where it is (after an undo it does not, until the file is read again).
  public internal(set) var lastCommit: LineSpan?

  init(
    path: String, header: LogHeader, fileSystem: any FileSystem, descriptor: FileDescriptor,
    identity: FileIdentity, committedEnd: Int64, lastSequence: Int64, committedLines: Int,
    isWritable: Bool
  ) {
    self.path = path
    self.header = header
    self.fileSystem = fileSystem
    self.descriptor = descriptor
    self.identity = identity
    self.committedEnd = committedEnd
    self.lastSequence = lastSequence
    self.committedLines = committedLines
    self.isWritable = isWritable
  }

  deinit { fileSystem.close(descriptor) }

  /// Creates a new log holding only its header.
  ///
  /// The header is written to a temporary file, synchronized, and renamed into place, so the
  /// file either does not exist or is complete. Its folder is created (0700) if needed.
  ///
  /// - Parameters:
  ///   - path: Where the log goes; nothing may exist there yet.
  ///   - header: The header line.
  ///   - fileSystem: The file-system seam.
  /// - Returns: The open log.
  /// - Throws: ``LogError/alreadyExists(_:)`` or ``LogError/io(_:)``.
  public static func create(
    at path: String, header: LogHeader, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> Log {
    let existing: FileIdentity?
    do { existing = try fileSystem.identity(atPath: path) } catch { throw .io(error) }
    guard existing == nil else { throw .alreadyExists(path) }
    do throws(FileSystemError) {
      try fileSystem.makeDirectory(parentPath(of: path))
      var bytes = [UInt8]()
      appendHeaderLine(header, to: &bytes)
      try fileSystem.writeFileAtomically(path, bytes)
      let descriptor = try fileSystem.open(path, .readWrite)
      let identity: FileIdentity
      do { identity = try fileSystem.identity(of: descriptor) } catch {
        fileSystem.close(descriptor)
        throw error
      }
      let log = Log(
        path: path, header: header, fileSystem: fileSystem, descriptor: descriptor,
        identity: identity, committedEnd: Int64(bytes.count), lastSequence: 0,
        committedLines: 1, isWritable: true)
      log.lastCommit = LineSpan(offset: 0, length: bytes.count - 1, line: 1)
      return log
    } catch {
      throw .io(error.renamed(path))
    }
  }

  /// A position in the log that ``undo(to:)`` can return to.
  ///
  /// It belongs to one generation of the file: after a compaction (or a reopen) it no longer
  /// names a position of the file, and undoing to it is refused.
  public struct Mark: Hashable, Sendable {
    let end: Int64
    let sequence: Int64
    let lines: Int
    let generation: UInt64
  }

  /// The current end of the committed log.
  public var mark: Mark {
    Mark(end: committedEnd, sequence: lastSequence, lines: committedLines, generation: generation)
  }

  /// Appends one transaction and returns once it is on stable storage.
  ///
  /// If writing or synchronizing fails, the partial bytes are cut off again before the error
  /// is thrown, so the file holds exactly what it held before; the log then checks the file
  /// again before its next write.
  ///
  /// - Parameter operations: The transaction's operations; an empty list writes nothing.
  /// - Returns: Where each operation's line now is in the file.
  /// - Throws: ``LogError/lineTooLong(path:length:limit:)`` when a line would pass
  ///   ``LogLimits/maximumLineLength``, before anything is committed (a large transaction is
  ///   written a group of lines at a time: what its earlier groups wrote is cut off again); ``LogError/io(_:)`` when the file
  ///   system fails (nothing was committed); ``LogError/readOnly(_:)``.
  @discardableResult
  public func append(_ operations: [JSONObject]) throws(LogError) -> [LineSpan] {
    try append(count: operations.count) { operations[$0] }
  }

  /// ``append(_:)`` of `count` operations made one at a time by `operation`, on every core,
  /// as their lines are encoded: a large transaction (a first sync's 100,000 versions) never
  /// holds every operation's JSON tree at once.
  ///
  /// - Parameters:
  ///   - count: How many operations; none writes nothing.
  ///   - operation: The operation at an index; pure.
  @discardableResult
  public func append(count: Int, operation: @Sendable (Int) -> JSONObject) throws(LogError)
    -> [LineSpan]
  {
    try append(count: count, writing: { JSONWriter.write(.object(operation($0)), into: &$1) })
  }

  /// ``append(count:operation:)`` with each operation's JSON text appended by `write`, for a
  /// content that writes its changes' text without building their trees (the same bytes).
  ///
  /// - Parameters:
  ///   - count: How many operations; none writes nothing.
  ///   - write: Appends the JSON text of the operation at an index; pure.
  @discardableResult
  public func append(count: Int, writing write: @Sendable (Int, inout [UInt8]) -> Void)
    throws(LogError) -> [LineSpan]
  {
    guard count > 0 else { return [] }
    let sequence = lastSequence + 1
    var spans = [LineSpan]()
    spans.reserveCapacity(count)
    // A group of lines is encoded (on every core), checked and written before the next is
    // encoded: a transaction as large as the store (a first sync's pass writes 78 MB in one)
    // holds one group's bytes, not all of them.
    var offset = committedEnd
    var commitStart: Int64 = 0
    for first in stride(from: 0, to: count, by: Log.linesPerGroup) {
      let range = first..<min(count, first + Log.linesPerGroup)
      var pieces = Log.encodeLines(range, sequence: sequence, write: write)
      var start = offset
      for piece in pieces {
        for length in piece.lengths {
          guard length <= LogLimits.maximumLineLength else {
            // Nothing is committed: what earlier groups wrote is cut off again.
            if offset > committedEnd { try withdraw() }
            throw .lineTooLong(path: path, length: length, limit: LogLimits.maximumLineLength)
          }
          spans.append(
            LineSpan(offset: start, length: length, line: committedLines + spans.count + 1))
          start += Int64(length + 1)
        }
      }
      if range.upperBound == count {
        // The commit line ends the last piece.
        commitStart = start
        Log.appendCommitLine(
          sequence: sequence, count: count, to: &pieces[pieces.count - 1].bytes)
      }
      if offset == committedEnd { try prepareToWrite() }
      do throws(FileSystemError) {
        if offset == committedEnd {
          let size = try fileSystem.identity(of: descriptor).size
          guard size == committedEnd else {
            throw FileSystemError(
              operation: "append to", path: path, code: 0,
              reason: "the file changed since it was read (\(size) bytes, expected \(committedEnd))"
            )
          }
        }
        for piece in pieces {
          try fileSystem.write(descriptor, piece.bytes, at: offset)
          offset += Int64(piece.bytes.count)
        }
      } catch {
        cutBack(to: committedEnd)
        throw .io(error.renamed(path))
      }
    }
    do throws(FileSystemError) {
      try fileSystem.synchronize(descriptor)
    } catch {
      cutBack(to: committedEnd)
      throw .io(error.renamed(path))
    }
    lastCommit = LineSpan(
      offset: commitStart, length: Int(offset - commitStart) - 1,
      line: committedLines + count + 1)
    committedEnd = offset
    lastSequence = sequence
    committedLines += count + 1
    return spans
  }

  /// Removes everything appended after `mark` (used to roll back a pass that failed halfway).
  ///
  /// - Parameter mark: A mark taken with ``mark`` on this log.
  /// - Throws: ``LogError/cannotUndo(path:reason:)`` when the file was compacted or reopened
  ///   since the mark (its bytes are no longer where the mark says), or when the mark is past
  ///   the end; ``LogError/io(_:)`` when the file cannot be cut or synchronized.
  public func undo(to mark: Mark) throws(LogError) {
    guard mark.generation == generation else {
      throw .cannotUndo(path: path, reason: "the file was compacted or reopened since")
    }
    guard mark.end <= committedEnd else {
      throw .cannotUndo(path: path, reason: "the mark is past the end of the file")
    }
    guard mark.end < committedEnd else { return }
    try prepareToWrite()
    do throws(FileSystemError) {
      try fileSystem.truncate(descriptor, to: mark.end)
      try fileSystem.synchronize(descriptor)
    } catch {
      needsReopening = true
      throw .io(error.renamed(path))
    }
    committedEnd = mark.end
    lastSequence = mark.sequence
    committedLines = mark.lines
    lastCommit = nil
  }

  /// Cuts the file back after a failed write. The write or its fsync failed, so the state of
  /// the file is not trusted any more: the next write checks it again first. A failure to cut
  /// is left to that check and to the next open, which drop the uncommitted tail.
  private func cutBack(to size: Int64) {
    needsReopening = true
    try? fileSystem.truncate(descriptor, to: size)
    try? fileSystem.synchronize(descriptor)
  }

  /// Cuts the file back to its committed end and synchronizes it: what an append wrote before
  /// it found a line over the limit, or a tail once it is kept aside. Nothing failed before, so
  /// once cut the log is trusted as it stands; if the cut fails, the next write checks the file
  /// again first.
  func withdraw() throws(LogError) {
    do throws(FileSystemError) {
      try fileSystem.truncate(descriptor, to: committedEnd)
      try fileSystem.synchronize(descriptor)
    } catch {
      needsReopening = true
      throw .io(error.renamed(path))
    }
  }

  /// How many lines one piece of ``encodeLines(_:sequence:write:)`` holds.
  static let linesPerPiece = 256
  /// How many lines an append encodes before it writes them: a few pieces per core.
  static let linesPerGroup = linesPerPiece * max(16, 8 * Parallel.processorCount)

  /// The framed lines of one transaction's operations, in order, as consecutive pieces (each
  /// the bytes of a run of lines and each line's length without its newline); a large
  /// transaction is encoded on every core (``Parallel``), with the same bytes.
  static func encodeLines(
    _ lines: Range<Int>, sequence: Int64, write: @Sendable (Int, inout [UInt8]) -> Void
  ) -> [(bytes: [UInt8], lengths: [Int])] {
    let pieceCount = (lines.count + linesPerPiece - 1) / linesPerPiece
    return Parallel.map(count: pieceCount, minimumChunk: 4) { piece in
      let first = lines.lowerBound + piece * linesPerPiece
      let range = first..<min(lines.upperBound, first + linesPerPiece)
      var bytes = [UInt8]()
      bytes.reserveCapacity(range.count * 256)
      var lengths = [Int]()
      lengths.reserveCapacity(range.count)
      for index in range {
        let start = bytes.count
        LineFraming.appendLine(to: &bytes) { out in
          appendKey("tx", to: &out)
          out.append(contentsOf: String(sequence).utf8)
          out.append(UInt8(ascii: ","))
          appendKey("op", to: &out)
          write(index, &out)
          out.append(UInt8(ascii: "}"))
        }
        lengths.append(bytes.count - start - 1)
      }
      return (bytes, lengths)
    }
  }

  static func appendHeaderLine(_ header: LogHeader, to bytes: inout [UInt8]) {
    LineFraming.appendLine(to: &bytes) { out in
      appendKey("header", to: &out)
      JSONWriter.write(.object(header.json), into: &out)
      out.append(UInt8(ascii: "}"))
    }
  }

  static func appendCommitLine(sequence: Int64, count: Int, to bytes: inout [UInt8]) {
    LineFraming.appendLine(to: &bytes) { out in
      appendKey("tx", to: &out)
      out.append(contentsOf: String(sequence).utf8)
      out.append(UInt8(ascii: ","))
      appendKey("commit", to: &out)
      out.append(contentsOf: String(count).utf8)
      out.append(UInt8(ascii: "}"))
    }
  }
}

/// Appends `"key":`.
func appendKey(_ key: String, to out: inout [UInt8]) {
  JSONWriter.writeString(key, into: &out)
  out.append(UInt8(ascii: ":"))
}

extension FileSystemError {
  /// The same error naming `path` (descriptor-level errors only know the descriptor number).
  func renamed(_ path: String) -> FileSystemError {
    self.path.hasPrefix("fd ")
      ? FileSystemError(operation: operation, path: path, code: code, reason: reason) : self
  }
}
