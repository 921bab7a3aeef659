import Foundation
import StashTestSupport
import Testing

/// Runs the built `stash` binary with raw bytes: arguments and environment values that need
/// not be UTF-8, a chosen current folder, and a time limit (a hang is killed and reported).
///
/// Every run starts from an environment with only `PATH` and `NO_COLOR` unless the caller sets
/// more; nothing from the test runner's own environment leaks in, so a stray `STASH_HOME` can
/// never point a test at a real folder.
struct RawCLI {
  /// The test's sandbox: an absolute path every file the child may touch lies under.
  let sandbox: String
  /// How long one run may take before it is killed, in seconds (generous: the machine is busy).
  static let timeout = 30.0

  init(sandbox: URL) {
    self.sandbox = sandbox.path
  }

  /// Runs `stash` with `arguments` (text or bytes), exactly `environment` plus `PATH`, in
  /// `folder` (default: the sandbox).
  func run(
    _ arguments: [Bytes], environment: [String: Bytes] = [:], in folder: String? = nil
  ) throws -> Outcome {
    var variables = ["PATH": Bytes("/usr/bin:/bin"), "NO_COLOR": Bytes("1")]
    variables.merge(environment) { _, new in new }
    let entries = variables.sorted { $0.key < $1.key }.map {
      Array("\($0.key)=".utf8) + $0.value.raw
    }
    let outcome = try BoundedProcess.run(
      CLI.binary.path, arguments: arguments.map(\.raw), environment: entries,
      in: folder ?? sandbox, scratch: sandbox, timeout: Self.timeout)
    return Outcome(outcome)
  }

  /// A run's result with its output decoded (invalid bytes repaired, for messages only).
  struct Outcome: CustomStringConvertible {
    var raw: BoundedProcess.Outcome
    var status: Int32 { raw.status }
    var standardOutput: String { String(decoding: raw.output, as: UTF8.self) }
    var standardError: String { String(decoding: raw.error, as: UTF8.self) }
    /// The last line on standard error.
    var lastErrorLine: String {
      standardError.split(separator: "\n", omittingEmptySubsequences: true).last.map(String.init)
        ?? ""
    }
    var description: String { raw.description }

    init(_ raw: BoundedProcess.Outcome) { self.raw = raw }
  }
}

/// An argument or a variable's value as bytes, written as text where it is text.
struct Bytes: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  var raw: [UInt8]

  init(_ text: String) { raw = Array(text.utf8) }
  init(raw: [UInt8]) { self.raw = raw }
  init(stringLiteral text: String) { self.init(text) }

  /// The bytes as text if they are UTF-8.
  var text: String? { String(validating: raw, as: UTF8.self) }

  /// Readable in a test report: invalid bytes and controls escaped.
  var description: String {
    guard let text else { return raw.map { String(format: "\\x%02X", $0) }.joined() }
    return text.debugDescription
  }
}

/// Runs `body` with a raw CLI on a fresh sandbox (removed afterwards).
func withRawCLI<T>(_ body: (RawCLI) throws -> T) throws -> T {
  try withTemporaryFolder { folder in try body(RawCLI(sandbox: folder)) }
}

/// What must never reach a terminal raw.
enum Terminal {
  /// The scalars in `text` a terminal would act on or that reorder what it shows: C0 controls
  /// other than line feed and tab, DEL, C1 controls, the line and paragraph separators, and
  /// the bidirectional embeddings, overrides and isolates.
  static func unsafeScalars(in text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { scalar in
      switch scalar.value {
      case 0x0A, 0x09: false
      case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
      default: false
      }
    }
  }
}
