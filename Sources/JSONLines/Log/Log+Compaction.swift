public import StashModel

extension Log {
  /// Rewrites the file to hold only `operations`, as one transaction after the header.
  ///
  /// The new file is written beside the old one, synchronized, renamed over it, and the folder
  /// is synchronized: a crash leaves either the old file or the new one, never a mix. Other
  /// processes notice the new file (``CatchUpResult/replaced``) and read it again.
  ///
  /// - Parameters:
  ///   - operations: The live state, as the store would replay it.
  ///   - newHeader: The header of the rewritten file (a format upgrade writes the new
  ///     version); `nil` keeps the current one.
  /// - Throws: ``LogError/io(_:)``; the old file is then untouched.
  public func compact(to operations: [JSONObject], header newHeader: LogHeader? = nil)
    throws(LogError)
  {
    let header = newHeader ?? self.header
    var bytes = [UInt8]()
    bytes.reserveCapacity(operations.count * 256 + 256)
    Log.appendHeaderLine(header, to: &bytes)
    var lines = 1
    if !operations.isEmpty {
      for operation in operations {
        LineFraming.appendLine(to: &bytes) { out in
          out.append(contentsOf: #""tx":1,"op":"#.utf8)
          JSONWriter.write(.object(operation), into: &out)
          out.append(UInt8(ascii: "}"))
        }
      }
      Log.appendCommitLine(sequence: 1, count: operations.count, to: &bytes)
      lines += operations.count + 1
    }
    do throws(FileSystemError) {
      try Log.writeReplacing(path: path, bytes: bytes, fileSystem: fileSystem)
      let reopened = try fileSystem.open(path, .readWrite)
      fileSystem.close(descriptor)
      descriptor = reopened
      identity = try fileSystem.identity(of: reopened)
    } catch {
      throw .io(error.renamed(path))
    }
    committedEnd = Int64(bytes.count)
    lastSequence = operations.isEmpty ? 0 : 1
    committedLines = lines
    self.header = header
  }
}
