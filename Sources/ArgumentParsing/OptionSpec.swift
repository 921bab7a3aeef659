/// The declaration of one named option, such as `--quantity N` or `--json`, as the parser and
/// the help see it; a command declares it as an ``Option`` or a ``Flag`` for its handler to read.
///
/// Options are always written with two dashes and their long name. The only short option is
/// the built-in `-h`. An option's value may follow as the next argument (`--quantity 5`) or
/// after an equals sign (`--quantity=5`); the next argument is taken as the value even when it
/// starts with `-`, so `--quantity -3` reaches the command, which decides whether -3 is
/// allowed.
public struct OptionSpec: Sendable, Hashable {
  /// The long name without its dashes, such as `"quantity"` for `--quantity`.
  ///
  /// Names are lowercase words joined by `-`; `help` and `version` are reserved.
  public var name: String

  /// The placeholder shown in help for the value, such as `"N"` in `--quantity N`.
  ///
  /// When `nil`, help uses a placeholder derived from ``kind`` (`TEXT`, `N`, `D`, `PATH`, or the
  /// choices joined by `|`). Flags have no placeholder.
  public var valueName: String?

  /// One line describing the option, shown in the OPTIONS section of help.
  ///
  /// Write it in sentence case without a trailing period, e.g. "How many units you have".
  public var help: String

  /// What value the option takes, which decides how the parser checks it.
  ///
  /// Use ``ValueKind/flag`` for an option that takes no value.
  public var kind: ValueKind

  /// Whether the option is accepted by this command and all of its subcommands.
  ///
  /// A global option may be written before or after any subcommand name, as in
  /// `stash --home DIR list` and `stash list --home DIR`.
  public var isGlobal: Bool

  /// Whether the option may be given more than once.
  ///
  /// When `false`, giving it twice is a usage error naming the option. An ``Option`` of an
  /// array reads every value of a repeatable option.
  public var isRepeatable: Bool

  /// Whether the command refuses to run without this option.
  ///
  /// Help shows a required option without brackets in the usage line.
  public var isRequired: Bool

  /// Declares an option.
  ///
  /// The defaults describe the common case: an optional, non-repeatable option that belongs to
  /// one command.
  ///
  /// - Parameters:
  ///   - name: The long name without dashes, such as `"quantity"`.
  ///   - kind: What value the option takes; `.flag` for none.
  ///   - valueName: The placeholder shown in help, such as `"N"`; `nil` derives one from `kind`.
  ///   - help: One line describing the option.
  ///   - isGlobal: Whether subcommands accept it too.
  ///   - isRepeatable: Whether it may be given more than once.
  ///   - isRequired: Whether the command refuses to run without it.
  public init(
    _ name: String,
    _ kind: ValueKind = .string,
    value valueName: String? = nil,
    help: String,
    isGlobal: Bool = false,
    isRepeatable: Bool = false,
    isRequired: Bool = false
  ) {
    self.name = name
    self.valueName = valueName
    self.help = help
    self.kind = kind
    self.isGlobal = isGlobal
    self.isRepeatable = isRepeatable
    self.isRequired = isRequired
  }

  /// Declares a flag: an option that takes no value, such as `--json`.
  ///
  /// A command declares it as a ``Flag`` for its handler to read.
  ///
  /// - Parameters:
  ///   - name: The long name without dashes, such as `"json"`.
  ///   - help: One line describing the flag.
  ///   - isGlobal: Whether subcommands accept it too.
  /// - Returns: The option declaration.
  public static func flag(_ name: String, help: String, isGlobal: Bool = false) -> OptionSpec {
    OptionSpec(name, .flag, help: help, isGlobal: isGlobal)
  }

  /// The option as written on the command line, such as `"--quantity"`.
  ///
  /// Messages and help use this form.
  public var flagText: String { "--" + name }

  /// The option with its placeholder, as help shows it: `"--quantity N"` or `"--json"`.
  ///
  /// The placeholder is ``valueName`` when set, else one derived from ``kind``.
  public var label: String {
    guard let placeholder = valueName ?? kind.defaultValueName else { return flagText }
    return flagText + " " + placeholder
  }
}
