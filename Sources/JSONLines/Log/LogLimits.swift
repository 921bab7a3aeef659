/// How large a store file's lines may be.
///
/// A save that would write a longer line is refused before anything reaches the disk
/// (``LogError/lineTooLong(path:length:limit:)``); a longer line in a file is invalid, and is
/// read past without being kept in memory (a committed one refuses the file, naming its line).
/// The stores keep their records far smaller than this, so that a transaction of several full
/// snapshots (a conflict) still fits on one line.
public enum LogLimits {
  /// The longest line, in bytes without its newline: 1 MiB.
  public static let maximumLineLength = 1 << 20
}
