/// The checked, converted values of one command line, ready for a command to use.
///
/// A handler reads each value through the declaration its command lists: `arguments[quantity]`
/// for an ``Option``, a ``Flag`` or an ``Argument``, typed as the declaration says. Every value
/// has already been checked against its ``ValueKind``, so a required value is always there and
/// a number is always a number. Reading a declaration the command does not list (or lists with
/// other help, kind or placeholder) is a programming mistake and stops the program.
public struct ParsedArguments: Sendable, Equatable {
  /// The subcommand names that were run, root excluded, such as `["location", "add"]`.
  ///
  /// The path is empty when the root command itself runs; use it to pick the handler.
  public let path: [String]

  private let values: [String: [ParsedValue]]
  private let arguments: [String: ArgumentSpec]
  private let options: [String: OptionSpec]

  init(
    path: [String],
    values: [String: [ParsedValue]],
    arguments: [String: ArgumentSpec],
    options: [String: OptionSpec]
  ) {
    self.path = path
    self.values = values
    self.arguments = arguments
    self.options = options
  }

  /// The value of a declared option: `nil` when an optional one was not given, every value of
  /// a repeatable one.
  ///
  /// - Parameter option: A declaration the command (or, for a global option, a command above
  ///   it) lists.
  public subscript<Value>(option: Option<Value>) -> Value {
    precondition(
      options[option.spec.name] == option.spec,
      "No option '\(option.spec.flagText)' on '\(path.joined(separator: " "))'")
    return read(option.spec.name)
  }

  /// Whether a declared flag was given.
  ///
  /// - Parameter flag: A declaration the command (or a command above it) lists.
  public subscript(flag: Flag) -> Bool {
    isGiven(flag.spec)
  }

  /// The value of a declared positional argument: `nil` when an optional one was not given,
  /// every value of a variadic one.
  ///
  /// - Parameter argument: A declaration the command lists.
  public subscript<Value>(argument: Argument<Value>) -> Value {
    precondition(
      arguments[argument.spec.name] == argument.spec,
      "No argument '<\(argument.spec.name)>' on '\(path.joined(separator: " "))'")
    return read(argument.spec.name)
  }

  /// Whether an option the command lists was given, whatever its type.
  ///
  /// Use it for a check over several options, such as "at least one of the command's
  /// options": `command.options.contains(where: arguments.isGiven)`.
  ///
  /// - Parameter option: An option the command (or a command above it) lists.
  /// - Returns: `true` when it was given at least once.
  public func isGiven(_ option: OptionSpec) -> Bool {
    precondition(
      options[option.name] == option,
      "No option '\(option.flagText)' on '\(path.joined(separator: " "))'")
    return values[option.name] != nil
  }

  private func read<Value: ArgumentValue>(_ name: String) -> Value {
    Value.reading(
      (values[name] ?? []).map { value in
        guard let scalar = Value.Scalar(argumentText: value.text) else {
          preconditionFailure("'\(value.text)' for '\(name)' is no \(Value.Scalar.self)")
        }
        return scalar
      })
  }
}

// The parser's own tests read values by name, below the typed declarations.
extension ParsedArguments {
  /// Whether the option or argument named `name` was given.
  func has(_ name: String) -> Bool { all(name) != nil }

  /// Whether the flag named `name` was given.
  func flag(_ name: String) -> Bool { has(name) }

  /// The last text given for `name`.
  func string(_ name: String) -> String? { all(name)?.last?.text }

  /// The last text given for the argument named `name`.
  func positional(_ name: String) -> String? {
    assert(arguments[name] != nil, "No argument '\(name)'")
    return string(name)
  }

  /// Every text given for `name`, in order.
  func strings(_ name: String) -> [String] { (all(name) ?? []).map(\.text) }

  /// The last whole number given for `name`.
  func integer(_ name: String) -> Int64? { all(name)?.last?.integer }

  /// The last decimal number given for `name`.
  func decimal(_ name: String) -> Double? { all(name)?.last?.decimal }

  private func all(_ name: String) -> [ParsedValue]? {
    assert(arguments[name] != nil || options[name] != nil, "No option or argument '\(name)'")
    return values[name]
  }
}
