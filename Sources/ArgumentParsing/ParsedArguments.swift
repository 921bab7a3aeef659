/// The checked, converted values of one command line, ready for a command to use.
///
/// Values are looked up by name: options by their long name without dashes (`"quantity"`),
/// positional arguments by their uppercase name (`"ITEM"`). Every value has already been
/// checked against its ``ValueKind``, so `integer(_:)` of an integer option that was given is
/// never `nil`. Asking for a name the command does not declare is a programming mistake and
/// fails an assertion in debug builds.
public struct ParsedArguments: Sendable, Equatable {
  /// The subcommand names that were run, root excluded, such as `["location", "add"]`.
  ///
  /// The path is empty when the root command itself runs; use it to pick the handler.
  public let path: [String]

  private let values: [String: [ParsedValue]]
  private let argumentNames: Set<String>
  private let optionNames: Set<String>

  init(
    path: [String],
    values: [String: [ParsedValue]],
    argumentNames: Set<String>,
    optionNames: Set<String>
  ) {
    self.path = path
    self.values = values
    self.argumentNames = argumentNames
    self.optionNames = optionNames
  }

  /// Whether the option or positional argument was given.
  ///
  /// Use it for options whose mere presence matters, or to tell an absent value from one given
  /// as the empty string.
  ///
  /// - Parameter name: An option's long name without dashes, or an argument's name.
  /// - Returns: `true` when at least one value was given.
  public func has(_ name: String) -> Bool {
    all(name) != nil
  }

  /// Whether a flag was given.
  ///
  /// This is the same as ``has(_:)``, named for reading flags: `arguments.flag("json")`.
  ///
  /// - Parameter name: The flag's long name without dashes.
  /// - Returns: `true` when the flag was given.
  public func flag(_ name: String) -> Bool {
    has(name)
  }

  /// The text of an option or argument, as typed.
  ///
  /// For a repeatable option or a variadic argument this is the last value; use
  /// ``strings(_:)`` for all of them. Numeric values can be read as text too.
  ///
  /// - Parameter name: An option's long name without dashes, or an argument's name.
  /// - Returns: The text, or `nil` when it was not given.
  public func string(_ name: String) -> String? {
    all(name)?.last?.text
  }

  /// The value of a positional argument, as typed.
  ///
  /// It reads like ``string(_:)`` but only accepts argument names, which makes handlers
  /// easier to read: `arguments.positional("ITEM")`.
  ///
  /// - Parameter name: The argument's name, such as `"ITEM"`.
  /// - Returns: The text, or `nil` when an optional argument was not given.
  public func positional(_ name: String) -> String? {
    assert(
      argumentNames.contains(name), "No argument '\(name)' on '\(path.joined(separator: " "))'")
    return string(name)
  }

  /// Every value of a repeatable option or variadic argument, in the order given.
  ///
  /// For other options and arguments this is an array of at most one value.
  ///
  /// - Parameter name: An option's long name without dashes, or an argument's name.
  /// - Returns: The texts as typed; empty when none were given.
  public func strings(_ name: String) -> [String] {
    (all(name) ?? []).map(\.text)
  }

  /// The value of a ``ValueKind/integer`` option or argument.
  ///
  /// The text was checked to be a decimal whole number that fits in `Int64`.
  ///
  /// - Parameter name: An option's long name without dashes, or an argument's name.
  /// - Returns: The number, or `nil` when it was not given (or is not an integer kind).
  public func integer(_ name: String) -> Int64? {
    all(name)?.last?.integer
  }

  /// The value of a ``ValueKind/decimal`` option or argument.
  ///
  /// The text was checked to be a finite number in plain decimal notation.
  ///
  /// - Parameter name: An option's long name without dashes, or an argument's name.
  /// - Returns: The number, or `nil` when it was not given (or is not a decimal kind).
  public func decimal(_ name: String) -> Double? {
    all(name)?.last?.decimal
  }

  private func all(_ name: String) -> [ParsedValue]? {
    assert(
      argumentNames.contains(name) || optionNames.contains(name),
      "No option or argument '\(name)' on '\(path.joined(separator: " "))'")
    return values[name]
  }
}
