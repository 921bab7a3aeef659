/// A command line the parser refused, with a message that says what to do instead.
///
/// Messages are in sentence case, put the culprit in single quotes, end without a period, and
/// suggest the closest known name when one is close, e.g.
/// `Unknown option '--quantty' for 'stash add'; did you mean '--quantity'?`. The error also
/// carries the command reached, so the caller can print ``helpHint`` (`See 'stash add --help'`)
/// on the next line and exit with status 2.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What sort of mistake the command line made.
  ///
  /// Callers and tests can branch on the kind without matching message text.
  public enum Kind: Sendable, Hashable {
    /// An option the command reached does not accept, such as `--quantty`.
    ///
    /// The message suggests the closest accepted option when one is close; an option of a
    /// parent command given before descending into a subcommand also counts as unknown.
    case unknownOption

    /// A subcommand name the command does not have, such as `lst`.
    ///
    /// The message suggests the closest subcommand name when one is close.
    case unknownCommand

    /// An option that takes a value was the last argument.
    ///
    /// The message says what kind of value it takes, with an example.
    case missingValue

    /// A flag was given a value, as in `--json=yes`.
    ///
    /// Flags are present or absent; the message says to drop the value.
    case flagGivenValue

    /// A value that is not of its option's or argument's kind, such as `abc` for a number.
    ///
    /// The message says what kind of value is expected, or suggests a close choice.
    case invalidValue

    /// A whole or decimal number beyond what its kind holds.
    ///
    /// The message says whether it is too large or too small, and the accepted range.
    case valueOutOfRange

    /// A required positional argument was not given.
    ///
    /// The message names the argument and shows the command's positional usage.
    case missingArgument

    /// More positional arguments were given than the command takes.
    ///
    /// The message names the first extra argument.
    case unexpectedArgument

    /// A required option was not given.
    ///
    /// The message names the option with its placeholder, as in `--message TEXT`.
    case missingOption

    /// A non-repeatable option was given more than once.
    ///
    /// Global options count once across the whole line, before and after subcommand names.
    case repeatedOption

    /// Two options from one exclusive group were given.
    ///
    /// The message names both, in the order they were given.
    case exclusiveOptions

    /// A command that needs a subcommand was run alone.
    ///
    /// The caller should show the command's help (on standard error) before the message and
    /// the help hint, so that this error ends like every other.
    case missingSubcommand
  }

  /// What sort of mistake the command line made.
  ///
  /// For ``Kind/missingSubcommand`` the caller shows the command's help before it.
  public var kind: Kind

  /// The message for the user, without the help hint.
  ///
  /// It is one line in sentence case, with the culprit in single quotes and no trailing period.
  public var message: String

  /// The subcommand names leading to the command the error is about, root excluded.
  ///
  /// For `stash location add --bogus` this is `["location", "add"]`; pass it to
  /// ``ArgumentParser/help(for:)`` to get that command's help.
  public var path: [String]

  /// The root command's name, such as `"stash"`.
  ///
  /// Together with ``path`` it spells the command line shown in ``helpHint``.
  public var rootName: String

  /// The close known name suggested in the message, if any, such as `"--quantity"`.
  ///
  /// It is written as the user would type it: options with their dashes.
  public var suggestion: String?

  /// Creates a usage error.
  ///
  /// The parser makes these; the initializer is public so commands can report their own
  /// usage mistakes in the same shape.
  ///
  /// - Parameters:
  ///   - kind: What sort of mistake it is.
  ///   - message: The message, in sentence case without a trailing period.
  ///   - path: The subcommand names leading to the command, root excluded.
  ///   - rootName: The root command's name.
  ///   - suggestion: The close known name the message suggests, if any.
  public init(
    _ kind: Kind,
    message: String,
    path: [String],
    rootName: String,
    suggestion: String? = nil
  ) {
    self.kind = kind
    self.message = message
    self.path = path
    self.rootName = rootName
    self.suggestion = suggestion
  }

  /// The command the error is about, as typed: `"stash location add"`.
  ///
  /// This is the root name followed by the path.
  public var commandLine: String { ([rootName] + path).joined(separator: " ") }

  /// The line to print after the message: `See 'stash location add --help'`.
  ///
  /// It names the help of the command the error is about.
  public var helpHint: String { "See '\(commandLine) --help'" }

  /// The message, so that printing the error prints what the user should read.
  ///
  /// The help hint is not included; print ``helpHint`` on its own line.
  public var description: String { message }
}
