/// A named option declared with its type, such as `--quantity N` read as `Int64?`.
///
/// A command lists the declaration's ``spec`` among its options, and its handler reads the
/// value with `arguments[declaration]`, so the name is written once and a misspelt one is a
/// compile error rather than a silent `nil`. The type says how the option is shown and
/// checked: `Option<Int64>` is required, `Option<Int64?>` optional, `Option<[String]>`
/// repeatable (see ``ArgumentValue``).
public struct Option<Value: ArgumentValue>: Sendable, Hashable {
  /// The option as the parser and the help see it.
  ///
  /// Its kind is the value type's (or the one given), and it is required or repeatable as
  /// the type says.
  public let spec: OptionSpec

  /// Declares an option whose kind is the value type's (`.integer` for `Int64`).
  ///
  /// - Parameters:
  ///   - name: The long name without dashes, such as `"quantity"`.
  ///   - valueName: The placeholder shown in help, such as `"N"`; `nil` derives one from the
  ///     kind.
  ///   - help: One line describing the option.
  ///   - isGlobal: Whether subcommands accept it too.
  public init(
    _ name: String, value valueName: String? = nil, help: String, isGlobal: Bool = false
  ) {
    self.init(name, Value.Scalar.kind, valueName, help, isGlobal)
  }

  /// Declares an option of text values of another kind: ``ValueKind/path`` or
  /// ``ValueKind/choice(_:)``.
  ///
  /// - Parameters:
  ///   - name: The long name without dashes, such as `"format"`.
  ///   - kind: `.path` or `.choice([...])` (or `.string`).
  ///   - valueName: The placeholder shown in help; `nil` derives one from the kind.
  ///   - help: One line describing the option.
  ///   - isGlobal: Whether subcommands accept it too.
  public init(
    _ name: String, _ kind: ValueKind, value valueName: String? = nil, help: String,
    isGlobal: Bool = false
  ) where Value.Scalar == String {
    precondition(kind.isText, "Option '--\(name)' of text cannot be of kind \(kind)")
    self.init(name, kind, valueName, help, isGlobal)
  }

  private init(
    _ name: String, _ kind: ValueKind, _ valueName: String?, _ help: String, _ isGlobal: Bool
  ) {
    spec = OptionSpec(
      name, kind, value: valueName, help: help, isGlobal: isGlobal,
      isRepeatable: Value.count == .many, isRequired: Value.count == .one)
  }
}

/// A flag declared for a handler to read, such as `--json`: `true` when it was given.
///
/// A command lists the declaration's ``spec`` among its options; its handler reads
/// `arguments[declaration]`.
public struct Flag: Sendable, Hashable {
  /// The flag as the parser and the help see it.
  ///
  /// Its kind is ``ValueKind/flag``.
  public let spec: OptionSpec

  /// Declares a flag.
  ///
  /// - Parameters:
  ///   - name: The long name without dashes, such as `"json"`.
  ///   - help: One line describing the flag.
  ///   - isGlobal: Whether subcommands accept it too.
  public init(_ name: String, help: String, isGlobal: Bool = false) {
    spec = .flag(name, help: help, isGlobal: isGlobal)
  }
}

/// A positional argument declared with its type, such as `<ITEM>` read as `String`.
///
/// A command lists the declaration's ``spec`` among its arguments; its handler reads
/// `arguments[declaration]`. `Argument<String>` is required, `Argument<Int64?>` optional
/// (`[<N>]`), `Argument<[String]>` variadic and optional (`[<FILE> ...]`).
public struct Argument<Value: ArgumentValue>: Sendable, Hashable {
  /// The argument as the parser and the help see it.
  ///
  /// Its kind is the value type's (or the one given).
  public let spec: ArgumentSpec

  /// Declares an argument whose kind is the value type's.
  ///
  /// - Parameters:
  ///   - name: The uppercase name, such as `"ITEM"`.
  ///   - help: One line describing the argument.
  public init(_ name: String, help: String) {
    self.init(name, Value.Scalar.kind, help)
  }

  /// Declares an argument of text values of another kind: ``ValueKind/path`` or
  /// ``ValueKind/choice(_:)``.
  ///
  /// - Parameters:
  ///   - name: The uppercase name, such as `"FILE"`.
  ///   - kind: `.path` or `.choice([...])` (or `.string`).
  ///   - help: One line describing the argument.
  public init(_ name: String, _ kind: ValueKind, help: String) where Value.Scalar == String {
    precondition(kind.isText, "Argument '<\(name)>' of text cannot be of kind \(kind)")
    self.init(name, kind, help)
  }

  private init(_ name: String, _ kind: ValueKind, _ help: String) {
    spec = ArgumentSpec(
      name, kind, help: help, isRequired: Value.count == .one, isVariadic: Value.count == .many)
  }
}

extension ValueKind {
  /// Whether a value of this kind is read as text (`String`).
  var isText: Bool {
    switch self {
    case .string, .path, .choice: true
    case .flag, .integer, .decimal: false
    }
  }
}
