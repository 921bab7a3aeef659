import Foundation
import JSONLines
import StashBase
import StashFiles
import StashModel
import StashTestSupport

/// What every fuzz case must satisfy, whatever it was given.
///
/// For every case: no crash (no signal, no "Fatal error"), no hang (the run is killed after a
/// time limit), a documented exit status (0, 1, 2, 4 or 6 (a key refused or lacking), and 5
/// for `sync verify` finding a difference: no lock is ever held, so never 3),
/// valid UTF-8 output with no control or bidi character a terminal would act on, and:
/// - exit 2: nothing on standard output, and standard error ends with the message and
///   `See 'stash … --help'`;
/// - exit 1, 4 or 6: a message on standard error, in sentence case without a trailing period
///   (exit 1 and 6 print nothing on standard output);
/// - any exit but 0, and any command that only reads: no byte changed anywhere in the sandbox;
/// - exit 0: every change lies inside a folder the case named as its home (or the shared
///   folder, for sync), and `--json` output parses;
/// - a `STASH_NOW` that is not a usable time, or a home that can never be a folder, is
///   refused (exit 1 with the right message, or 2 for a line that does not parse), unless
///   the line asked for help.
enum FuzzOracle {
  static func problems(
    of outcome: BoundedProcess.Outcome, for fuzz: FuzzCase, before: FolderSnapshot,
    after: FolderSnapshot, sandbox: FuzzSandbox
  ) -> [String] {
    var problems: [String] = []
    let status = outcome.status
    guard let output = String(validating: outcome.output, as: UTF8.self),
      let errors = String(validating: outcome.error, as: UTF8.self)
    else { return ["printed bytes that are not UTF-8"] }
    if outcome.timedOut { problems.append("hung: killed after \(RawCLI.timeout) s") }
    if outcome.signal != nil || errors.contains("Fatal error") || errors.contains("crashed") {
      problems.append("crashed")
    }
    // `sync verify` exits 5 when this device and the shared folder differ (documented).
    let differs = status == 5 && fuzz.command.path == ["sync", "verify"]
    if ![0, 1, 2, 4, 6].contains(status) && !differs {
      problems.append("exit \(status) is not documented here")
    }
    for (name, text) in [("stdout", output), ("stderr", errors)] {
      let unsafe = Terminal.unsafeScalars(in: text)
      if !unsafe.isEmpty { problems.append("\(name) holds raw \(unsafe.map(\.escaped))") }
    }
    let lines = errors.split(separator: "\n").map(String.init)
    let isHelp = output.hasPrefix("OVERVIEW: ") || output.hasPrefix("stash ")
    switch status {
    case 2:
      if !output.isEmpty { problems.append("exit 2 printed on standard output") }
      if !(lines.last ?? "").hasPrefix("See 'stash") || !(lines.last ?? "").hasSuffix(" --help'") {
        problems.append("exit 2 without the 'See ... --help' line")
      }
      if lines.count >= 2 { problems += style(of: lines[lines.count - 2]) }
    case 1, 4, 6:
      if lines.isEmpty { problems.append("exit \(status) without a message") }
      if status != 4 && !output.isEmpty {
        problems.append("exit \(status) printed on standard output")
      }
      problems += lines.flatMap(style(of:))
    default:
      break
    }
    let changes = after.changedPaths(from: before)
    if !changes.isEmpty {
      let shown = changes.prefix(4).map { String(decoding: $0, as: UTF8.self) }
      if status != 0 { problems.append("exit \(status) but changed \(shown)") }
      // `export --output FILE` writes that one new file, and nothing else.
      let output = exportOutput(of: fuzz, sandbox: sandbox)
      let read = changes.filter { path in
        Paths.resolved(sandbox.root + "/" + String(decoding: path, as: UTF8.self)) != output
      }
      if fuzz.command.onlyReads && !read.isEmpty {
        let shown = read.prefix(4).map { String(decoding: $0, as: UTF8.self) }
        problems.append("a reading command changed \(shown)")
      }
      if status == 0 {
        let allowed = allowedRoots(for: fuzz, sandbox: sandbox)
        let outside = changes.filter { path in
          let full = Paths.resolved(sandbox.root + "/" + String(decoding: path, as: UTF8.self))
          guard !allowed.contains(where: { Paths.isSameOrInside(full, $0) }) else { return false }
          let isNewFolder =
            before.entries[path] == nil && after.entries[path].map(\.isFolder) == true
          return !(isNewFolder && mayCreate(full, for: fuzz, sandbox: sandbox))
        }
        if !outside.isEmpty {
          problems.append(
            "wrote outside its home: \(outside.prefix(3).map { String(decoding: $0, as: UTF8.self) })"
          )
        }
      }
    }
    if status == 0 && !isHelp && fuzz.arguments.contains("--json") && fuzz.isIntact {
      // export's output is always the --format it names (JSON lines, or CSV).
      let values =
        fuzz.command.path == ["export"]
        ? (fuzz.arguments.contains { $0 == "csv" || $0 == "--format=csv" }
          ? [] : output.split(separator: "\n").map(String.init))
        : [output]
      if values.contains(where: { (try? JSONParser.parse($0)) == nil }) {
        problems.append("--json printed no JSON")
      }
    }
    problems += environmentProblems(status: status, errors: errors, isHelp: isHelp, fuzz, sandbox)
    return problems
  }

  /// Sentence case, no trailing period.
  private static func style(of line: String) -> [String] {
    var problems: [String] = []
    if line.hasSuffix(".") {
      problems.append("message ends with a period: \(line.debugDescription)")
    }
    if let first = line.first, !(first.isUppercase || first == "'" || first.isNumber) {
      problems.append("message not in sentence case: \(line.debugDescription)")
    }
    return problems
  }

  private static func environmentProblems(
    status: Int32, errors: String, isHelp: Bool, _ fuzz: FuzzCase, _ sandbox: FuzzSandbox
  ) -> [String] {
    guard !isHelp, fuzz.command.runs else { return [] }
    let utf8Arguments = fuzz.arguments.allSatisfy { $0.text != nil }
    if !FuzzValues.isUsableClock(fuzz.environment["STASH_NOW"]) {
      if status == 0 { return ["ran with an unusable STASH_NOW"] }
      if status == 1 && utf8Arguments && !errors.hasPrefix("STASH_NOW '") {
        return ["refused an unusable STASH_NOW without naming it"]
      }
      return []
    }
    guard fuzz.isIntact else { return [] }
    guard let home = fuzz.home else {
      // The home variable in use is not UTF-8 or is a relative HOME: refused.
      return status == 0 ? ["ran without a usable home (\(fuzz.source.rawValue))"] : []
    }
    if status == 0, let reason = unusable(home, sandbox: sandbox) {
      return ["ran on a home that \(reason)"]
    }
    return []
  }

  /// Why a home can never be a device folder, or `nil` when it can be (or be created).
  static func unusable(_ home: Bytes, sandbox: FuzzSandbox) -> String? {
    guard let text = home.text else { return "is not UTF-8" }
    var path = text.hasPrefix("/") ? text : sandbox.workingFolder + "/" + text
    var isHome = true
    var info = stat()
    while true {
      if stat(path, &info) == 0 {
        if (info.st_mode & S_IFMT) == S_IFDIR { return nil }
        return isHome ? "is not a folder" : "is below a file"
      }
      if errno == ELOOP || errno == ENAMETOOLONG { return "cannot be reached" }
      guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
      path = String(path[..<slash])
      isHome = false
    }
  }

  /// Whether a writing case may create `folder` on the way to its home, as `mkdir -p` does:
  /// a parent of a home, or a folder a home's path passes through (`a/../b` creates `a`).
  private static func mayCreate(_ folder: String, for fuzz: FuzzCase, sandbox: FuzzSandbox)
    -> Bool
  {
    for home in homesNamed(by: fuzz, sandbox: sandbox) {
      if Paths.isSameOrInside(Paths.resolved(home, relativeTo: sandbox.workingFolder), folder) {
        return true
      }
      let parts = Paths.components(of: home)
      guard parts.contains(".."), parts.count < 64 else { continue }
      var prefix = home.hasPrefix("/") ? "" : sandbox.workingFolder
      for part in parts {
        prefix += "/" + part
        if Paths.resolved(prefix) == folder { return true }
      }
    }
    return false
  }

  /// The folders a successful case may write: each home it named, resolved, and the shared
  /// folder for sync commands.
  private static func allowedRoots(for fuzz: FuzzCase, sandbox: FuzzSandbox) -> [String] {
    var roots = homesNamed(by: fuzz, sandbox: sandbox).map {
      Paths.resolved($0, relativeTo: sandbox.workingFolder)
    }
    if fuzz.command.path.first == "sync" { roots.append(Paths.resolved(sandbox.root + "/cloud")) }
    // `sync enable --encrypt --cloud DIR` publishes the new folder's zone.json in DIR.
    if fuzz.command.path == ["sync", "enable"] {
      for (index, token) in fuzz.arguments.enumerated() {
        var named: Bytes?
        if token == "--cloud", index + 1 < fuzz.arguments.count {
          named = fuzz.arguments[index + 1]
        } else if token.raw.starts(with: Array("--cloud=".utf8)) {
          named = Bytes(raw: Array(token.raw.dropFirst(8)))
        }
        if let text = named?.text, !text.isEmpty {
          roots.append(Paths.resolved(text, relativeTo: sandbox.workingFolder))
        }
      }
    }
    if let output = exportOutput(of: fuzz, sandbox: sandbox) { roots.append(output) }
    return roots
  }

  /// The file `stash export --output FILE` names (its last `--output`), resolved.
  private static func exportOutput(of fuzz: FuzzCase, sandbox: FuzzSandbox) -> String? {
    guard fuzz.command.path == ["export"] else { return nil }
    var named: Bytes?
    for (index, token) in fuzz.arguments.enumerated() {
      if token == "--output", index + 1 < fuzz.arguments.count {
        named = fuzz.arguments[index + 1]
      } else if token.raw.starts(with: Array("--output=".utf8)) {
        named = Bytes(raw: Array(token.raw.dropFirst(9)))
      }
    }
    guard let text = named?.text, !text.isEmpty else { return nil }
    return Paths.resolved(text, relativeTo: sandbox.workingFolder)
  }

  /// Every home a case could mean: each `--home` value on its line, `STASH_HOME`, the home
  /// the generator meant, and the default below the sandbox's `HOME`.
  private static func homesNamed(by fuzz: FuzzCase, sandbox: FuzzSandbox) -> [String] {
    var candidates: [Bytes] = []
    for (index, token) in fuzz.arguments.enumerated() {
      if token == "--home", index + 1 < fuzz.arguments.count {
        candidates.append(fuzz.arguments[index + 1])
      } else if token.raw.starts(with: Array("--home=".utf8)) {
        candidates.append(Bytes(raw: Array(token.raw.dropFirst(7))))
      }
    }
    candidates += [fuzz.environment["STASH_HOME"], fuzz.home].compactMap { $0 }
    candidates.append(Bytes(sandbox.root + "/user/.local/share/stash"))
    return candidates.compactMap(\.text).filter { !$0.isEmpty }
  }
}

extension FolderSnapshot.Entry {
  fileprivate var isFolder: Bool {
    if case .folder = self { return true }
    return false
  }
}

extension Unicode.Scalar {
  fileprivate var escaped: String { "U+" + String(value, radix: 16, uppercase: true) }
}
