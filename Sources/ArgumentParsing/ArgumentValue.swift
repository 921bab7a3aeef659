/// What a declared ``Option`` or ``Argument`` reads as: one value, an optional one, or several.
///
/// The type decides the declaration's shape, as in swift-argument-parser: a plain value
/// (`String`, `Int64`, `Double`) is required, an optional (`String?`) may be left out, and an
/// array (`[String]`) is a repeatable option or a variadic argument. A handler reading the
/// declaration gets exactly this type back, so it never unwraps a value the parser already
/// guaranteed.
public protocol ArgumentValue: Sendable {
  /// The type of each value typed on the command line.
  associatedtype Scalar: ArgumentScalar

  /// How many values the declaration takes.
  static var count: ValueCount { get }

  /// The declaration's value from the values given, in the order given.
  ///
  /// - Parameter values: The converted values; at least one when ``count`` is
  ///   ``ValueCount/one`` (the parser refused the command line otherwise).
  /// - Returns: The value a handler reads.
  static func reading(_ values: [Scalar]) -> Self
}

/// How many values a declared option or argument takes.
public enum ValueCount: Sendable, Hashable {
  /// Exactly one: the command refuses to run without it.
  case one
  /// At most one: it may be left out.
  case optional
  /// Any number: a repeatable option or a variadic (last) argument.
  case many
}

/// One value typed on the command line, converted to a Swift type.
///
/// `String`, `Int64` and `Double` conform, for the kinds ``ValueKind/string`` (and
/// ``ValueKind/path`` and ``ValueKind/choice(_:)``), ``ValueKind/integer`` and
/// ``ValueKind/decimal``.
public protocol ArgumentScalar: ArgumentValue where Scalar == Self {
  /// The kind a value of this type is checked as, when its declaration names no other.
  static var kind: ValueKind { get }

  /// The value of text the parser has already checked against a kind of this type.
  ///
  /// - Parameter text: The text as typed.
  init?(argumentText text: String)
}

extension ArgumentScalar {
  /// A plain value is required.
  public static var count: ValueCount { .one }

  /// The last value given (the parser guarantees there is one).
  public static func reading(_ values: [Self]) -> Self {
    guard let value = values.last else {
      preconditionFailure("A required value of type \(Self.self) is missing")
    }
    return value
  }
}

extension String: ArgumentScalar {
  /// Text, taken as written.
  public static var kind: ValueKind { .string }

  /// The text itself.
  public init?(argumentText text: String) { self = text }
}

extension Int64: ArgumentScalar {
  /// A whole number.
  public static var kind: ValueKind { .integer }

  /// The number the text spells in decimal digits.
  public init?(argumentText text: String) { self.init(text) }
}

extension Double: ArgumentScalar {
  /// A finite number in plain decimal notation.
  public static var kind: ValueKind { .decimal }

  /// The number the text spells.
  public init?(argumentText text: String) { self.init(text) }
}

extension Optional: ArgumentValue where Wrapped: ArgumentScalar {
  /// An optional value may be left out.
  public static var count: ValueCount { .optional }

  /// The last value given, or `nil` when none was.
  public static func reading(_ values: [Wrapped]) -> Self { values.last }
}

extension Array: ArgumentValue where Element: ArgumentScalar {
  /// An array takes every value given.
  public static var count: ValueCount { .many }

  /// Every value given, in order.
  public static func reading(_ values: [Element]) -> Self { values }
}
