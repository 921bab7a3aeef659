/// Writes ``JSONValue``s as compact, deterministic JSON text.
///
/// The same value always gives the same bytes, which the stores rely on because every line
/// they write is checksummed over its exact bytes:
///
/// - no whitespace at all; object members in ``JSONObject`` order, duplicates included;
/// - strings escaped minimally: `"` and `\` are escaped, control characters U+0000–U+001F are
///   written as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX` with lowercase hex, and everything
///   else (including `/`, U+007F and all non-ASCII characters) is written as raw UTF-8;
/// - integers in decimal; doubles in Swift's shortest round-trip form (`description`), such as
///   `1.0`, `1e-05`, `5e-324`, `-0.0`, `1.7976931348623157e+308` or `1e+16`, which ``JSONParser``
///   and any correctly rounding reader turn back into the identical `Double`.
///
/// A non-finite double cannot be written as JSON; passing one is a programming error and stops
/// the program, so callers validate doubles before they build values.
public enum JSONWriter {
  /// Appends the JSON text of a value to a buffer.
  ///
  /// Nothing is written before or after the value (no newline). Containers are written
  /// recursively, so the call depth follows the value's nesting.
  ///
  /// - Parameters:
  ///   - value: The value to write; every double in it must be finite.
  ///   - buffer: The buffer to append the UTF-8 bytes to.
  public static func write(_ value: JSONValue, into buffer: inout [UInt8]) {
    var sink = ByteSink(capacity: 512)
    sink.write(value)
    sink.append(to: &buffer)
  }

  /// Returns the JSON text of a value as UTF-8 bytes.
  ///
  /// The bytes are exactly those ``write(_:into:)`` appends to an empty buffer.
  ///
  /// - Parameters:
  ///   - value: The value to write; every double in it must be finite.
  /// - Returns: The UTF-8 bytes of the JSON text.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var sink = ByteSink(capacity: 512)
    sink.write(value)
    return sink.bytes
  }

  /// Returns the JSON text of a value as a string.
  ///
  /// The string's UTF-8 form is exactly ``bytes(_:)``.
  ///
  /// - Parameters:
  ///   - value: The value to write; every double in it must be finite.
  /// - Returns: The JSON text.
  public static func string(_ value: JSONValue) -> String {
    String(decoding: bytes(value), as: UTF8.self)
  }

  /// Appends a string as a quoted, escaped JSON string literal.
  ///
  /// Only `"`, `\` and the control characters U+0000–U+001F are escaped; see ``JSONWriter``.
  ///
  /// - Parameters:
  ///   - string: The string to write.
  ///   - buffer: The buffer to append the UTF-8 bytes to.
  public static func writeString(_ string: String, into buffer: inout [UInt8]) {
    var string = string
    let plain = string.withUTF8 { utf8 in
      guard !utf8.contains(where: needsEscape) else { return false }
      buffer.append(UInt8(ascii: "\""))
      buffer.append(contentsOf: utf8)
      buffer.append(UInt8(ascii: "\""))
      return true
    }
    guard !plain else { return }
    var sink = ByteSink(capacity: string.utf8.count * 2 + 8)
    sink.writeString(string)
    sink.append(to: &buffer)
  }

  @inline(__always)
  static func needsEscape(_ b: UInt8) -> Bool {
    b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
  }

  /// The bytes of `word` (loaded little-endian) that must be escaped, as a mask with 0x80 set in
  /// each; the lowest set bit is exact (borrows only reach bytes above a flagged one).
  @inline(__always)
  static func escapeMask(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let control = (word &- ones &* 0x20) & ~word
    return (control | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & (ones &* 0x80)
  }
}
