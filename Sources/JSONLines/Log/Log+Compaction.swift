public import StashBase
import StashFiles
import StashModel

extension Log {
  /// Rewrites the file to hold only `operations`, as one transaction after the header.
  ///
  /// The new file is written beside the old one, synchronized, renamed over it, and the folder
  /// is synchronized: a crash leaves either the old file or the new one, never a mix. Other
  /// processes notice the new file (``CatchUpResult/replaced``) and read it again.
  ///
  /// Marks taken before a compaction no longer name a position of the file
  /// (``undo(to:)`` refuses them).
  ///
  /// - Parameters:
  ///   - operations: The live state, as the store would replay it.
  ///   - newHeader: The header of the rewritten file (a format upgrade writes the new
  ///     version); `nil` keeps the current one.
  /// - Throws: ``LogError/io(_:)``: the old file is then untouched, unless only the folder's
  ///   fsync failed after the new file took its place (the log then opens the file again
  ///   before its next write); ``LogError/lineTooLong(path:length:limit:)``.
  public func compact(to operations: [JSONObject], header newHeader: LogHeader? = nil)
    throws(LogError)
  {
    try prepareToWrite()
    let header = newHeader ?? self.header
    var bytes = [UInt8]()
    bytes.reserveCapacity(operations.count * 256 + 256)
    Log.appendHeaderLine(header, to: &bytes)
    var lines = 1
    var last = LineSpan(offset: 0, length: bytes.count - 1, line: 1)
    if !operations.isEmpty {
      for piece in Log.encodeLines(
        0..<operations.count, sequence: 1,
        write: { JSONWriter.write(.object(operations[$0]), into: &$1) })
      {
        for length in piece.lengths where length > LogLimits.maximumLineLength {
          throw .lineTooLong(path: path, length: length, limit: LogLimits.maximumLineLength)
        }
        bytes.append(contentsOf: piece.bytes)
      }
      let commitStart = bytes.count
      Log.appendCommitLine(sequence: 1, count: operations.count, to: &bytes)
      lines += operations.count + 1
      last = LineSpan(
        offset: Int64(commitStart), length: bytes.count - commitStart - 1, line: lines)
    }
    do throws(FileSystemError) {
      try fileSystem.writeFileAtomically(path, bytes)
      let reopened = try fileSystem.open(path, .readWrite)
      let reopenedIdentity: FileIdentity
      do { reopenedIdentity = try fileSystem.identity(of: reopened) } catch {
        fileSystem.close(reopened)
        throw error
      }
      fileSystem.close(descriptor)
      descriptor = reopened
      identity = reopenedIdentity
    } catch {
      // If the new file took the old one's place, this log's descriptor is the old, unlinked
      // file: it must never be written again.
      let onDisk = try? fileSystem.identity(atPath: path)
      if onDisk.map({ !$0.isSameFile(as: identity) }) ?? true { needsReopening = true }
      throw .io(error.renamed(path))
    }
    generation = Log.nextGeneration()
    committedEnd = Int64(bytes.count)
    lastSequence = operations.isEmpty ? 0 : 1
    committedLines = lines
    lastCommit = last
    self.header = header
  }
}
