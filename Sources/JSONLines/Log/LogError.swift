public import StashFiles

/// Why a log could not be opened, read or written.
///
/// Every case names the file. A failed write never leaves a partial transaction behind: the
/// log cuts it off again before throwing, and a crash is handled by the next open.
public enum LogError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A file operation failed.
  case io(FileSystemError)
  /// Another process held the folder's lock for longer than the wait allowed.
  case busy(String)
  /// The file does not exist.
  case missing(String)
  /// The file already exists (when creating a new log).
  case alreadyExists(String)
  /// A line before the last transaction fails its checksum or does not parse: the file is not
  /// opened until an explicit repair, so that nothing committed is silently dropped.
  case damaged(path: String, line: Int, reason: String)
  /// The file was written by a newer version of the format.
  case unsupportedVersion(path: String, found: Int, supported: Int)
  /// The file is a log of another kind (for example a mirror store where a local one was
  /// expected).
  case wrongFormat(path: String, found: String, expected: String)
  /// A write through a log opened for reading.
  case readOnly(String)
  /// The file was compacted or replaced since this log read it, after a failed write: it must
  /// be opened again from the start (the stores do this themselves).
  case needsReopening(String)
  /// An undo to a mark that no longer names a position of the file (a compaction or a reopen
  /// came between): refused, rather than cut the file in the wrong place.
  case cannotUndo(path: String, reason: String)
  /// A line would be longer than ``LogLimits/maximumLineLength``; nothing was written.
  case lineTooLong(path: String, length: Int, limit: Int)

  public var description: String {
    switch self {
    case .io(let error):
      return error.description
    case .busy(let lockPath):
      return "Another process is writing this folder (it holds '\(lockPath)'); "
        + "try again in a moment"
    case .missing(let path):
      return "There is no store at '\(path)'"
    case .alreadyExists(let path):
      return "A file already exists at '\(path)'; it was left as it is"
    case .damaged(let path, let line, let reason):
      return "The store '\(path)' is damaged at line \(line) (\(reason)); it was not opened "
        + "and nothing was changed"
    case .unsupportedVersion(let path, let found, let supported):
      return "The store '\(path)' has format version \(found), newer than this version of "
        + "stash reads (\(supported)); update stash to open it"
    case .wrongFormat(let path, let found, let expected):
      return "The file '\(path)' is a '\(found)' file, not a '\(expected)' one"
    case .readOnly(let path):
      return "The store '\(path)' was opened for reading; open it for writing to save"
    case .needsReopening(let path):
      return "The store '\(path)' changed after a failed write; open it again and retry"
    case .cannotUndo(let path, let reason):
      return "Could not undo the last changes of '\(path)': \(reason); they stay saved, and "
        + "the next sync reconciles them"
    case .lineTooLong(let path, let length, let limit):
      return "Could not save to '\(path)': a line would be \(length) bytes, more than the "
        + "\(limit) a line may hold; make the record smaller"
    }
  }
}
