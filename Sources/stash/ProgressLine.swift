import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How far a long operation (an import) has come, on one line of standard error that
/// rewrites itself: only when standard error is a terminal, so that pipes, files and scripts
/// never see it, and at most ten times a second.
final class ProgressLine {
  private let label: String
  private let isShown: Bool
  private var lastShown = 0.0
  private var wroteSomething = false

  /// A progress line for `label` ("Importing"); silent unless standard error is a terminal
  /// (and `TERM` is not `dumb`).
  init(_ label: String, environment: [String: String]) {
    self.label = label
    isShown = isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
  }

  /// Shows `done` of `total`, unless the last showing was under a tenth of a second ago (the
  /// first and the last are always shown).
  func report(_ done: Int, of total: Int) {
    guard isShown, total > 0 else { return }
    let now = Date().timeIntervalSince1970
    guard done == total || !wroteSomething || now - lastShown >= 0.1 else { return }
    lastShown = now
    wroteSomething = true
    let percent = done * 100 / total
    write("\r\u{1B}[K\(label) \(done) of \(total) (\(percent) %)")
  }

  /// Clears the line, so that what the command prints next starts on a clean one.
  func finish() {
    guard isShown, wroteSomething else { return }
    write("\r\u{1B}[K")
    wroteSomething = false
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
