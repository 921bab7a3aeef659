/// Why ``JSONParser`` rejected its input, and where.
///
/// The offset is the byte offset of the offending byte: the first byte that cannot be part of
/// a valid JSON text at that point, for example the `1` in `01`, the `x` in `"\x"` or a bad
/// hex digit of a `\u` escape. A few errors point at the start of what is wrong instead: an
/// ill-formed UTF-8 sequence at its first byte, an unpaired surrogate escape at its backslash,
/// and a number that does not fit in a `Double` at its first byte. When the input ends too
/// early the offset is the input's length. The reason is a short sentence in sentence case
/// without a trailing period.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The byte offset in the input where the problem was found.
  ///
  /// Counted in UTF-8 bytes from the start of the input, also when parsing a `String`.
  public var offset: Int

  /// What is wrong, for example "Expected ':' after an object key".
  ///
  /// Sentence case, no trailing period; meant for people, not for matching in code.
  public var reason: String

  /// Creates an error for a problem found at a byte offset.
  ///
  /// The parser creates these; tests and callers may create them to compare against.
  ///
  /// - Parameters:
  ///   - offset: The byte offset of the offending byte.
  ///   - reason: A sentence-case reason without a trailing period.
  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  /// The reason followed by the offset, for logs and test failures.
  ///
  /// For example "Expected ':' after an object key (at byte 7)".
  public var description: String {
    "\(reason) (at byte \(offset))"
  }
}
