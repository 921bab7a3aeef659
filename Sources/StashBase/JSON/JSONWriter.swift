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
    switch value {
    case .null:
      appendASCII("null", into: &buffer)
    case .bool(let flag):
      appendASCII(flag ? "true" : "false", into: &buffer)
    case .integer(let number):
      writeInteger(number, into: &buffer)
    case .double(let number):
      precondition(number.isFinite, "JSONWriter cannot write the non-finite double \(number)")
      buffer.append(contentsOf: number.description.utf8)
    case .string(let string):
      writeString(string, into: &buffer)
    case .array(let elements):
      buffer.append(UInt8(ascii: "["))
      var first = true
      for element in elements {
        if !first {
          buffer.append(UInt8(ascii: ","))
        }
        first = false
        write(element, into: &buffer)
      }
      buffer.append(UInt8(ascii: "]"))
    case .object(let object):
      buffer.append(UInt8(ascii: "{"))
      var first = true
      for member in object.members {
        if !first {
          buffer.append(UInt8(ascii: ","))
        }
        first = false
        writeString(member.key, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        write(member.value, into: &buffer)
      }
      buffer.append(UInt8(ascii: "}"))
    }
  }

  /// Returns the JSON text of a value as UTF-8 bytes.
  ///
  /// The bytes are exactly those ``write(_:into:)`` appends to an empty buffer.
  ///
  /// - Parameters:
  ///   - value: The value to write; every double in it must be finite.
  /// - Returns: The UTF-8 bytes of the JSON text.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(64)
    write(value, into: &buffer)
    return buffer
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
    buffer.append(UInt8(ascii: "\""))
    let written: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
      appendEscaped(utf8, into: &buffer)
    }
    if written == nil {
      Array(string.utf8).withUnsafeBufferPointer { appendEscaped($0, into: &buffer) }
    }
    buffer.append(UInt8(ascii: "\""))
  }

  /// Appends UTF-8 bytes with the characters JSON requires escaped, copying unescaped runs.
  private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8])
  {
    guard let base = utf8.baseAddress else { return }
    let count = utf8.count
    var runStart = 0
    var i = 0
    while true {
      // Skip eight plain bytes at a time, then finish byte by byte.
      while i + 8 <= count {
        let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        let mask = escapeMask(word)
        if mask != 0 {
          i += mask.trailingZeroBitCount >> 3
          break
        }
        i += 8
      }
      while i < count && !needsEscape(base[i]) {
        i += 1
      }
      guard i < count else { break }
      buffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart))
      appendEscape(for: base[i], into: &buffer)
      i += 1
      runStart = i
    }
    buffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
  }

  @inline(__always)
  private static func needsEscape(_ b: UInt8) -> Bool {
    b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
  }

  /// The bytes of `word` (loaded little-endian) that must be escaped, as a mask with 0x80 set in
  /// each; the lowest set bit is exact (borrows only reach bytes above a flagged one).
  @inline(__always)
  private static func escapeMask(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let control = (word &- ones &* 0x20) & ~word
    return (control | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & (ones &* 0x80)
  }

  /// Appends the escape sequence for `"`, `\` or a control character.
  private static func appendEscape(for b: UInt8, into buffer: inout [UInt8]) {
    buffer.append(UInt8(ascii: "\\"))
    switch b {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(b)
    case 0x08: buffer.append(UInt8(ascii: "b"))
    case 0x09: buffer.append(UInt8(ascii: "t"))
    case 0x0A: buffer.append(UInt8(ascii: "n"))
    case 0x0C: buffer.append(UInt8(ascii: "f"))
    case 0x0D: buffer.append(UInt8(ascii: "r"))
    default:
      let hexDigits: StaticString = "0123456789abcdef"
      buffer.append(UInt8(ascii: "u"))
      buffer.append(UInt8(ascii: "0"))
      buffer.append(UInt8(ascii: "0"))
      buffer.append(hexDigits.utf8Start[Int(b >> 4)])
      buffer.append(hexDigits.utf8Start[Int(b & 0xF)])
    }
  }

  /// Appends a decimal integer without going through `String`.
  private static func writeInteger(_ number: Int64, into buffer: inout [UInt8]) {
    if number < 0 {
      buffer.append(UInt8(ascii: "-"))
    }
    var magnitude = number.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  private static func appendASCII(_ text: StaticString, into buffer: inout [UInt8]) {
    buffer.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}
