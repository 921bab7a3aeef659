import ArgumentParsing

/// The behaviour of one `stash` command, found by its subcommand path.
///
/// Each command gets one small type under `Commands/` that conforms, plus one line in
/// ``CommandRegistry/handlers``. Its spec (arguments, options, help) stays in
/// ``CommandTable``.
protocol StashHandler: Sendable {
  /// The subcommand names this handler runs, root excluded, such as `["location", "add"]`.
  static var path: [String] { get }

  /// Runs the command with its checked values.
  ///
  /// - Parameters:
  ///   - arguments: The parsed command line; its path equals ``path``.
  ///   - session: The device folder and the output.
  /// - Returns: The exit status, 0 for success (`stash doctor` returns 4 for damage).
  /// - Throws: Anything; ``Failure`` turns it into a message and an exit status (a
  ///   ``UsageError`` exits with 2, a `StashError` by its category, anything else with 1).
  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32
}

/// Finds the handler for a parsed command line.
enum CommandRegistry {
  /// Every implemented command. A command in ``CommandTable`` without a handler here answers
  /// "not implemented yet".
  static let handlers: [any StashHandler.Type] = [
    InitCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self,
    ConsumeCommand.self, RestockCommand.self, EditCommand.self, DuplicateCommand.self,
    DeleteCommand.self,
    LocationAddCommand.self, LocationListCommand.self, LocationEditCommand.self,
    LocationDeleteCommand.self,
    ReminderAddCommand.self, ReminderListCommand.self, ReminderDeleteCommand.self,
    ConflictsCommand.self, ConflictsShowCommand.self, ConflictsResolveCommand.self,
    DoctorCommand.self, ExportCommand.self, ImportCommand.self,
    SyncCommand.self, SyncEnableCommand.self, SyncDisableCommand.self, SyncStatusCommand.self,
    SyncNewIdentityCommand.self, SyncJoinZoneCommand.self, SyncAddKeyCommand.self,
    SyncRotateKeyCommand.self,
    SyncVerifyCommand.self, HistoryCommand.self, UndoCommand.self,
  ]

  /// The handler for a subcommand path, or `nil` when that command is not implemented yet.
  static func handler(for path: [String]) -> (any StashHandler.Type)? {
    handlers.first { $0.path == path }
  }
}
