/// The declaration of one positional argument, such as `<ITEM>` or `[<N>]`, as the parser and
/// the help see it; a command declares it as an ``Argument`` for its handler to read.
///
/// Positional arguments are matched in declaration order. Required arguments come first, then
/// optional ones; the last argument may be variadic and take every remaining value. Any
/// argument that does not start with `-` is positional, and so is a negative number such as
/// `-3` (there are no short options it could be mistaken for), `-` alone, and everything
/// after `--`.
public struct ArgumentSpec: Sendable, Hashable {
  /// The name shown in help and used to read the value, such as `"ITEM"`.
  ///
  /// Names are uppercase so they never collide with option names.
  public var name: String

  /// One line describing the argument, shown in the ARGUMENTS section of help.
  ///
  /// Write it in sentence case without a trailing period.
  public var help: String

  /// What value the argument takes; any kind except ``ValueKind/flag``.
  ///
  /// The parser checks the value by this kind, so an ``Argument`` of `Int64` reads a number.
  public var kind: ValueKind

  /// Whether the command refuses to run without this argument.
  ///
  /// Help shows an optional argument in brackets: `[<N>]`.
  public var isRequired: Bool

  /// Whether the argument takes every remaining positional value.
  ///
  /// Only the last argument may be variadic; declare it as an ``Argument`` of an array to
  /// read its values.
  public var isVariadic: Bool

  /// Declares a positional argument.
  ///
  /// The defaults describe the common case: one required text value.
  ///
  /// - Parameters:
  ///   - name: The uppercase name, such as `"ITEM"`.
  ///   - kind: What value it takes; not `.flag`.
  ///   - help: One line describing the argument.
  ///   - isRequired: Whether the command refuses to run without it.
  ///   - isVariadic: Whether it takes every remaining value (last argument only).
  public init(
    _ name: String,
    _ kind: ValueKind = .string,
    help: String,
    isRequired: Bool = true,
    isVariadic: Bool = false
  ) {
    self.name = name
    self.kind = kind
    self.help = help
    self.isRequired = isRequired
    self.isVariadic = isVariadic
  }

  /// The argument as help shows it in a usage line: `<ITEM>`, `[<N>]` or `<FILE> ...`.
  ///
  /// Brackets mark an optional argument; `...` marks a variadic one.
  public var usage: String {
    let text = "<\(name)>" + (isVariadic ? " ..." : "")
    return isRequired ? text : "[\(text)]"
  }
}
