import Foundation

/// How wide help text may be: `COLUMNS` when it is a positive number, else the width of the
/// terminal standard output is,
/// else 80 columns (output to a file or a pipe). Never under 40.
enum TerminalWidth {
  /// The width for text written to `descriptor`.
  static func columns(environment: [String: String], descriptor: Int32 = STDOUT_FILENO) -> Int {
    if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 {
      return max(40, min(columns, 1000))
    }
    if isatty(descriptor) == 1, let columns = terminalColumns(descriptor), columns > 0 {
      return max(40, columns)
    }
    return 80
  }

  private static func terminalColumns(_ descriptor: Int32) -> Int? {
    var size = winsize()
    #if os(Linux)
      let request = UInt(TIOCGWINSZ)
    #else
      let request = TIOCGWINSZ
    #endif
    guard ioctl(descriptor, request, &size) == 0 else { return nil }
    return Int(size.ws_col)
  }
}
