import Foundation
public import StashModel

/// A durable JSON-lines transaction log: one store file.
///
/// ```
/// {"crc":"…","header":{"format":"stash.local","version":1,"store":"…","device":"…","created":…}}
/// {"crc":"…","tx":1,"op":{…}}
/// {"crc":"…","tx":1,"op":{…}}
/// {"crc":"…","tx":1,"commit":2}
/// ```
/// Only committed transactions count. ``append(_:)`` returns after the transaction is on
/// stable storage. Opening drops a torn or uncommitted tail (after keeping it in a side file)
/// and refuses a file with damage before its last commit.
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

  let fileSystem: any FileSystem
  var descriptor: FileDescriptor
  var identity: FileIdentity
  /// The number of lines in the committed part (the header is line 1).
  public internal(set) var committedLines: Int

  init(
    path: String, header: LogHeader, fileSystem: any FileSystem, descriptor: FileDescriptor,
    identity: FileIdentity, committedEnd: Int64, lastSequence: Int64, committedLines: Int
  ) {
    self.path = path
    self.header = header
    self.fileSystem = fileSystem
    self.descriptor = descriptor
    self.identity = identity
    self.committedEnd = committedEnd
    self.lastSequence = lastSequence
    self.committedLines = committedLines
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
      try writeReplacing(path: path, bytes: bytes, fileSystem: fileSystem)
      let descriptor = try fileSystem.open(path, .readWrite)
      return Log(
        path: path, header: header, fileSystem: fileSystem, descriptor: descriptor,
        identity: try fileSystem.identity(of: descriptor), committedEnd: Int64(bytes.count),
        lastSequence: 0, committedLines: 1)
    } catch {
      throw .io(error.renamed(path))
    }
  }

  /// A position in the log that ``undo(_:)`` can return to.
  public struct Mark: Hashable, Sendable {
    let end: Int64
    let sequence: Int64
    let lines: Int
  }

  /// The current end of the committed log.
  public var mark: Mark { Mark(end: committedEnd, sequence: lastSequence, lines: committedLines) }

  /// Appends one transaction and returns once it is on stable storage.
  ///
  /// If writing or synchronizing fails, the partial bytes are cut off again before the error
  /// is thrown, so the file holds exactly what it held before.
  ///
  /// - Parameter operations: The transaction's operations; an empty list writes nothing.
  /// - Throws: ``LogError/io(_:)`` when the file system fails; nothing was committed.
  public func append(_ operations: [JSONObject]) throws(LogError) {
    guard !operations.isEmpty else { return }
    let sequence = lastSequence + 1
    var bytes = [UInt8]()
    bytes.reserveCapacity(operations.count * 256)
    for operation in operations {
      LineFraming.appendLine(to: &bytes) { out in
        appendKey("tx", to: &out)
        out.append(contentsOf: String(sequence).utf8)
        out.append(UInt8(ascii: ","))
        appendKey("op", to: &out)
        JSONWriter.write(.object(operation), into: &out)
        out.append(UInt8(ascii: "}"))
      }
    }
    Log.appendCommitLine(sequence: sequence, count: operations.count, to: &bytes)
    do throws(FileSystemError) {
      let size = try fileSystem.identity(of: descriptor).size
      guard size == committedEnd else {
        throw FileSystemError(
          operation: "append to", path: path, code: 0,
          reason: "the file changed since it was read (\(size) bytes, expected \(committedEnd))")
      }
      try fileSystem.write(descriptor, bytes, at: committedEnd)
      try fileSystem.synchronize(descriptor)
    } catch {
      cutBack(to: committedEnd)
      throw .io(error.renamed(path))
    }
    committedEnd += Int64(bytes.count)
    lastSequence = sequence
    committedLines += operations.count + 1
  }

  /// Removes everything appended after `mark` (used to roll back a pass that failed halfway).
  ///
  /// - Parameter mark: A mark taken with ``mark`` on this log, since when nothing was
  ///   compacted.
  /// - Throws: ``LogError/io(_:)`` when the file cannot be cut or synchronized.
  public func undo(to mark: Mark) throws(LogError) {
    guard mark.end < committedEnd else { return }
    do throws(FileSystemError) {
      try fileSystem.truncate(descriptor, to: mark.end)
      try fileSystem.synchronize(descriptor)
    } catch {
      throw .io(error.renamed(path))
    }
    committedEnd = mark.end
    lastSequence = mark.sequence
    committedLines = mark.lines
  }

  /// Cuts the file back after a failed write; a failure here is left to the next open, which
  /// drops the uncommitted tail.
  private func cutBack(to size: Int64) {
    try? fileSystem.truncate(descriptor, to: size)
    try? fileSystem.synchronize(descriptor)
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

  /// Writes `bytes` to a temporary file beside `path`, synchronizes it, renames it over `path`
  /// and synchronizes the folder.
  static func writeReplacing(
    path: String, bytes: [UInt8], fileSystem: any FileSystem
  ) throws(FileSystemError) {
    let temporary = path + ".tmp"
    try fileSystem.removeFile(temporary)
    let descriptor = try fileSystem.open(temporary, .createNew)
    do throws(FileSystemError) {
      try fileSystem.write(descriptor, bytes, at: 0)
      try fileSystem.synchronize(descriptor)
      fileSystem.close(descriptor)
      try fileSystem.rename(temporary, to: path)
      try fileSystem.synchronizeDirectory(parentPath(of: path))
    } catch {
      fileSystem.close(descriptor)
      try? fileSystem.removeFile(temporary)
      throw error
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
