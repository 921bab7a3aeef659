/// The commands from the root down to the one reached so far, root first.
///
/// Both the parser and the help formatter need the whole chain: the command line is spelled
/// from every name on it, and global options declared higher up apply to the last command.
struct CommandChain: Sendable {
  /// The commands, root first; never empty.
  private(set) var commands: [CommandSpec]

  init(root: CommandSpec) {
    commands = [root]
  }

  init?(root: CommandSpec, path: [String]) {
    guard let commands = root.chain(to: path) else { return nil }
    self.commands = commands
  }

  /// The command reached so far.
  var command: CommandSpec { commands[commands.count - 1] }

  /// The root command.
  var root: CommandSpec { commands[0] }

  /// Whether the chain has not left the root.
  var isAtRoot: Bool { commands.count == 1 }

  /// The subcommand names below the root.
  var path: [String] { commands.dropFirst().map(\.name) }

  /// The command as typed: `"stash location add"`.
  var commandLine: String { commands.map(\.name).joined(separator: " ") }

  /// Whether `--version` is accepted here: at the root, when the root declares a version.
  var acceptsVersion: Bool { isAtRoot && root.version != nil }

  /// The options the last command accepts: its own, then global ones from higher up, root
  /// first.
  var options: [OptionSpec] {
    command.options + commands.dropLast().flatMap { $0.options.filter(\.isGlobal) }
  }

  /// Moves down to a subcommand.
  mutating func append(_ subcommand: CommandSpec) {
    commands.append(subcommand)
  }

  /// A usage error about the last command.
  func error(_ kind: UsageError.Kind, _ message: String, suggestion: String? = nil) -> UsageError {
    UsageError(kind, message: message, path: path, rootName: root.name, suggestion: suggestion)
  }
}
