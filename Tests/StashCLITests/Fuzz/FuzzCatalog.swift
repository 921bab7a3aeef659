import Foundation
import StashTestSupport

/// Every command of the built `stash`, read from its own `--help`, so the fuzzer covers the
/// whole command table, including commands added after it was written.
///
/// The help layout is pinned by golden tests (ArgumentParsingTests), so reading it is safe:
/// USAGE gives the positional arguments and which options are required (outside brackets),
/// OPTIONS the option names and their placeholders, SUBCOMMANDS the tree.
struct FuzzCatalog: Sendable {
  /// One command (or group) of the tree.
  struct Command: Sendable, CustomStringConvertible {
    /// The subcommand names below the root (empty for `stash` itself).
    var path: [String]
    /// Whether it runs by itself (a group such as `stash location` does not).
    var runs: Bool
    /// The positional arguments, in order.
    var arguments: [Argument]
    /// The options it accepts, global ones included, `--help`, `--version` and `--watch`
    /// excluded.
    var options: [Option]
    /// The subcommand names.
    var subcommands: [String]

    var description: String { (["stash"] + path).joined(separator: " ") }

    /// Whether the command only reads (it must never change a file, whatever it is given).
    var onlyReads: Bool {
      Self.readers.contains(path) || !runs
    }

    /// The commands that never write. `sync status` is not one: on a device entitled to sync
    /// it opens the mirror, which DESIGN.md creates whenever sync is entitled at launch.
    static let readers: Set<[String]> = [
      [], ["list"], ["show"], ["export"], ["doctor"], ["conflicts"], ["conflicts", "show"],
      ["location", "list"], ["reminder", "list"],
    ]
  }

  /// A positional argument: `<ITEM>`, optional when the usage writes `[<N>]`.
  struct Argument: Sendable {
    var name: String
    var isRequired: Bool
  }

  /// An option: its name, its placeholder (`nil` for a flag), and whether it is required.
  struct Option: Sendable {
    var name: String
    var placeholder: String?
    var isRequired: Bool
  }

  /// The commands, root first, in the order the help lists them.
  var commands: [Command]

  /// The catalog of the built binary, read once per test process.
  static let shared: Result<FuzzCatalog, CatalogError> = {
    do throws(CatalogError) {
      return .success(try discover())
    } catch {
      return .failure(error)
    }
  }()

  struct CatalogError: Error, CustomStringConvertible {
    var description: String
  }

  private static func discover() throws(CatalogError) -> FuzzCatalog {
    var commands: [Command] = []
    var pending: [[String]] = [[]]
    while !pending.isEmpty {
      let path = pending.removeFirst()
      let help = try helpText(path)
      let command = parse(help, path: path)
      commands.append(command)
      pending += command.subcommands.map { path + [$0] }
    }
    return FuzzCatalog(commands: commands)
  }

  private static func helpText(_ path: [String]) throws(CatalogError) -> String {
    let outcome: BoundedProcess.Outcome
    do {
      outcome = try BoundedProcess.run(
        CLI.binary.path, arguments: (path + ["--help"]).map { Array($0.utf8) },
        // Wide enough that no help row wraps (continuation lines are skipped anyway).
        environment: [Array("PATH=/usr/bin:/bin".utf8), Array("COLUMNS=1000".utf8)],
        scratch: NSTemporaryDirectory(),
        timeout: 60)
    } catch {
      throw CatalogError(description: "\(error); run 'swift build' first")
    }
    guard outcome.status == 0 else {
      throw CatalogError(description: "'stash \(path) --help' failed: \(outcome)")
    }
    return String(decoding: outcome.output, as: UTF8.self)
  }

  static func parse(_ help: String, path: [String]) -> Command {
    let sections = help.components(separatedBy: "\n\n")
    let usage =
      sections.first { $0.hasPrefix("USAGE: ") }?.dropFirst("USAGE: ".count)
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    let names = (["stash"] + path).joined(separator: " ")
    let forms = usage.reduce(into: [String]()) { forms, line in
      if line.hasPrefix(names + " ") || line == names {
        forms.append(line)
      } else {
        forms[forms.count - 1] += " " + line
      }
    }
    let runnable = forms.first { !$0.hasSuffix("<subcommand>") }
    var command = Command(
      path: path, runs: runnable != nil, arguments: [], options: [], subcommands: [])
    if let runnable {
      for word in runnable.split(separator: " ") where word.contains("<") {
        let name = word.filter { !"[]<>".contains($0) }
        command.arguments.append(Argument(name: name, isRequired: word.hasPrefix("<")))
      }
    }
    for section in sections {
      let rows = section.split(separator: "\n").dropFirst().map(String.init)
      if section.hasPrefix("OPTIONS:") {
        for row in rows where row.hasPrefix("  --") {  // a wrapped row goes on at column 27
          let label = row.dropFirst(2).components(separatedBy: "  ")[0]
          let parts = label.split(separator: " ", maxSplits: 1).map(String.init)
          let name = String(parts[0].dropFirst(2))
          // `--watch` runs until a signal, by design (`WatchTests` stops it with SIGTERM and
          // checks the clean exit); every fuzzed case must end by itself.
          guard name != "help" && name != "version" && name != "watch" else { continue }
          let required = runnable.map { isOutsideBrackets("--" + name, in: $0) } ?? false
          command.options.append(
            Option(name: name, placeholder: parts.count > 1 ? parts[1] : nil, isRequired: required))
        }
      } else if section.hasPrefix("SUBCOMMANDS:") {
        command.subcommands = rows.filter { !$0.hasPrefix("   ") }.map {
          String($0.dropFirst(2).split(separator: " ")[0])
        }
      }
    }
    return command
  }

  /// Whether `word` occurs in `usage` outside every `[...]`.
  private static func isOutsideBrackets(_ word: String, in usage: String) -> Bool {
    var depth = 0
    for (offset, character) in usage.enumerated() {
      if character == "[" { depth += 1 }
      if character == "]" { depth -= 1 }
      if depth == 0,
        usage.dropFirst(offset).hasPrefix(word + " ") || usage.dropFirst(offset) == word
      {
        return true
      }
    }
    return false
  }
}
