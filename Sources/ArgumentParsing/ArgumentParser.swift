/// What a command line asked for: help, the version, or a command to run.
///
/// Help and the version are answered by the caller with exit status 0; a command is dispatched
/// by its ``ParsedArguments/path``.
public enum ParseOutcome: Sendable, Equatable {
  /// `-h` or `--help` was given; the text is the help of the command reached so far.
  ///
  /// Print it to standard output and exit with status 0.
  case help(String)

  /// `--version` was given at the root.
  ///
  /// Print the tool's name and ``CommandSpec/version`` and exit with status 0.
  case version

  /// A command to run, with its checked and converted values.
  ///
  /// Dispatch on the arguments' ``ParsedArguments/path``.
  case command(ParsedArguments)
}

/// Parses command lines against one tree of ``CommandSpec`` values.
///
/// The parser is table-driven: it knows nothing about any particular command, only the specs.
/// It reads options as `--name value` or `--name=value` (a value starting with `-` is still a
/// value), ends options at `--`, answers `-h`/`--help` anywhere with the help of the command
/// reached so far, answers `--version` at the root, and otherwise returns the command's checked
/// values or throws a ``UsageError`` that says what to do.
public struct ArgumentParser: Sendable {
  /// The root of the command tree: the tool itself.
  ///
  /// Its name is the tool's name, used in help and messages.
  public let root: CommandSpec

  /// The help formatter used for `--help` and ``help(for:)``.
  ///
  /// It defaults to a formatter for 100 columns.
  public let formatter: HelpFormatter

  /// Creates a parser for a command tree.
  ///
  /// The tree is checked with ``CommandSpec/problems()`` first; a tree with problems is a
  /// programming mistake and stops the program with a precondition failure listing them.
  ///
  /// - Parameters:
  ///   - root: The tool's command, with every subcommand below it.
  ///   - formatter: How help text is laid out.
  public init(root: CommandSpec, formatter: HelpFormatter = HelpFormatter()) {
    let problems = root.problems()
    precondition(problems.isEmpty, "Command table problems:\n" + problems.joined(separator: "\n"))
    self.root = root
    self.formatter = formatter
  }

  /// Parses a command line.
  ///
  /// Subcommand names are matched first, then options and positional arguments are checked
  /// and converted by kind. When the line has a mistake but also asks for help after it, help
  /// wins, so `stash add --quantty 5 --help` shows the help of `stash add`. A line that starts
  /// with ``helpCommand`` asks for help by name, as git's does: `stash help sync status` is
  /// `stash sync status --help` (unless the root has a subcommand of that name).
  ///
  /// - Parameter arguments: The arguments after the tool's name (`CommandLine.arguments`
  ///   without its first element).
  /// - Returns: Help, the version, or the command to run with its values.
  /// - Throws: ``UsageError`` for anything the specs do not allow.
  public func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
    var state = ParseState(root: root)
    var index = 0
    do throws(UsageError) {
      while index < arguments.count {
        let token = arguments[index]
        index += 1
        switch try state.read(token, from: arguments, at: &index) {
        case .help: return .help(formatter.help(for: state.chain))
        case .version: return .version
        case nil: continue
        }
      }
      if state.isHelpByName { return .help(formatter.help(for: state.chain)) }
      return .command(try state.finish())
    } catch {
      let rest = state.optionsEnded ? [] : arguments[index...].prefix { $0 != "--" }
      if rest.contains(where: ParseState.isHelp) {
        return .help(formatter.help(for: state.chain))
      }
      throw error
    }
  }

  /// The word that asks for help by name, as git's: `stash help sync status`.
  ///
  /// It may follow the root's global options (`stash --home DIR help sync`); the names after it
  /// lead to the command whose help is printed, and a name that is not a subcommand of the
  /// command reached so far is a usage error with the closest name suggested. A tree whose
  /// root has a subcommand of that name keeps it.
  public static let helpCommand = "help"

  /// The help text of a command in this parser's tree.
  ///
  /// Use it to show a command's help when parsing failed with
  /// ``UsageError/Kind/missingSubcommand``, passing the error's ``UsageError/path``.
  ///
  /// - Parameter path: Subcommand names below the root, such as `["location"]`.
  /// - Returns: The help text without a trailing newline, or `nil` for an unknown path.
  public func help(for path: [String]) -> String? {
    CommandChain(root: root, path: path).map(formatter.help(for:))
  }
}
