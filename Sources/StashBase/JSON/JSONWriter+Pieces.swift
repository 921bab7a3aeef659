/// The pieces of ``JSONWriter``'s text, for a type that writes its own JSON form straight to
/// bytes instead of building a ``JSONValue`` tree first (a version's line, written for every
/// record of a first sync): each appends exactly what ``JSONWriter/write(_:into:)`` writes
/// for the same value, so that a direct writer built from them gives the tree's bytes.
extension JSONWriter {
  /// Appends ASCII text as it is: punctuation and member names that need no escape, such as
  /// `{"id":`.
  ///
  /// - Parameters:
  ///   - text: ASCII text without a character JSON escapes in a string.
  ///   - buffer: The buffer to append the bytes to.
  @inlinable
  public static func writeRaw(_ text: StaticString, into buffer: inout [UInt8]) {
    buffer.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends an integer as ``JSONValue/integer(_:)`` is written: in decimal.
  ///
  /// - Parameters:
  ///   - number: The integer.
  ///   - buffer: The buffer to append the bytes to.
  public static func writeInteger(_ number: Int64, into buffer: inout [UInt8]) {
    // The digits, last first, on the stack: no string is built.
    var magnitude = number.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
      if number < 0 { buffer.append(UInt8(ascii: "-")) }
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// Appends a double as ``JSONValue/double(_:)`` is written: Swift's shortest round-trip
  /// form.
  ///
  /// - Parameters:
  ///   - number: A finite double; a non-finite one stops the program, as in ``JSONWriter``.
  ///   - buffer: The buffer to append the bytes to.
  public static func writeDouble(_ number: Double, into buffer: inout [UInt8]) {
    precondition(number.isFinite, "JSONWriter cannot write the non-finite double \(number)")
    // A whole number below 2^53 in magnitude (but -0.0) is, in that form, its integer and
    // ".0", written without the general algorithm (about 700 instructions): an imported
    // record's dates are whole seconds.
    if number.magnitude < 0x1p53, number.rounded(.towardZero) == number,
      number != 0 || number.sign == .plus
    {
      writeInteger(Int64(number), into: &buffer)
      writeRaw(".0", into: &buffer)
      return
    }
    buffer.append(contentsOf: number.description.utf8)
  }

  /// Appends a boolean as ``JSONValue/bool(_:)`` is written.
  ///
  /// - Parameters:
  ///   - flag: The boolean.
  ///   - buffer: The buffer to append the bytes to.
  public static func writeBool(_ flag: Bool, into buffer: inout [UInt8]) {
    if flag { writeRaw("true", into: &buffer) } else { writeRaw("false", into: &buffer) }
  }

  /// Appends bytes as a JSON string of their lowercase hex digits (a digest as its `hex`
  /// text), without building the string.
  ///
  /// - Parameters:
  ///   - raw: The bytes, such as a digest's.
  ///   - buffer: The buffer to append the quoted digits to.
  public static func writeHexString(_ raw: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
    let start = buffer.count
    buffer.append(contentsOf: repeatElement(UInt8(ascii: "\""), count: raw.count * 2 + 2))
    buffer.withUnsafeMutableBytes { out in
      HexDigits.write(raw, to: out.baseAddress! + start + 1)
    }
  }

}
