import ArgumentParsing

/// The behaviour of one `stash` command, found by its subcommand path.
///
/// Each command gets one small file under `Commands/` declaring a type that conforms, plus one
/// line in ``CommandRegistry/handlers``. Its spec (arguments, options, help) stays in
/// ``CommandTable``.
protocol StashHandler: Sendable {
  /// The subcommand names this handler runs, root excluded, such as `["location", "add"]`.
  static var path: [String] { get }

  /// Runs the command with its checked values.
  ///
  /// - Parameter arguments: The parsed command line; its path equals ``path``.
  /// - Returns: The exit status, 0 for success.
  /// - Throws: A ``UsageError`` for a usage mistake the parser cannot see (exit 2, with the
  ///   help hint), or any other error to report (exit 1).
  static func run(_ arguments: ParsedArguments) throws -> Int32
}

/// Finds the handler for a parsed command line.
enum CommandRegistry {
  /// Every implemented command. A command in ``CommandTable`` without a handler here answers
  /// "not implemented yet".
  static let handlers: [any StashHandler.Type] = []

  /// The handler for a subcommand path, or `nil` when that command is not implemented yet.
  static func handler(for path: [String]) -> (any StashHandler.Type)? {
    handlers.first { $0.path == path }
  }
}
