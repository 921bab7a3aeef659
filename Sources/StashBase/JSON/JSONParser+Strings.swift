// String literals: a fast path for strings without escapes (validated in place and copied
// once), and a slower path that decodes escapes into a reused scratch buffer.

extension JSONScanner {
  /// The bytes of `word` (loaded little-endian) that are `"`, `\`, below 0x20 or above 0x7F,
  /// as a mask with 0x80 set in each such byte; 0 when there are none.
  ///
  /// Borrows between bytes can only set bits above the lowest byte that is really flagged, so
  /// the lowest set bit always marks the first byte that needs attention.
  @inline(__always)
  static func attentionMask(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let flags = (word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones) | word
    return flags & (ones &* 0x80)
  }

  /// The offset of the first byte at or after `offset` that is `"`, `\`, a control character or
  /// non-ASCII, or the offset of one of the last 7 bytes of the input if none is found before.
  @inline(__always)
  func skipPlainBytes(from offset: Int) -> Int {
    var i = offset
    while i + 8 <= end {
      let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
      let mask = Self.attentionMask(word)
      if mask != 0 {
        return i + mask.trailingZeroBitCount >> 3
      }
      i += 8
    }
    return i
  }

  /// Reads a string literal whose opening quote has been consumed, and the closing quote.
  mutating func parseString() throws(JSONError) -> String {
    let start = index
    var i = index
    while true {
      i = skipPlainBytes(from: i)
      guard i < end else { throw endOfInput }
      let b = byte(i)
      if b == UInt8(ascii: "\"") {
        index = i + 1
        return makeString(start: start, count: i - start)
      }
      if b == UInt8(ascii: "\\") {
        return try parseEscapedString(start: start, escape: i)
      }
      if b < 0x20 {
        throw controlCharacter(at: i)
      }
      i = b < 0x80 ? i + 1 : try skipMultibyte(at: i, lead: b)
    }
  }

  /// A string from input bytes that are known to be valid UTF-8.
  @inline(__always)
  func makeString(start: Int, count: Int) -> String {
    guard count > 0 else { return "" }
    let source = base + start
    return String(unsafeUninitializedCapacity: count) { buffer in
      UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped).copyMemory(
        from: source, byteCount: count)
      return count
    }
  }

  /// Continues a string at its first escape, decoding into `scratch`.
  mutating func parseEscapedString(start: Int, escape: Int) throws(JSONError) -> String {
    scratch.removeAll(keepingCapacity: true)
    var runStart = start
    var i = escape
    while true {
      i = skipPlainBytes(from: i)
      guard i < end else { throw endOfInput }
      let b = byte(i)
      if b == UInt8(ascii: "\"") {
        scratch.append(
          contentsOf: UnsafeRawBufferPointer(start: base + runStart, count: i - runStart))
        index = i + 1
        return String(decoding: scratch, as: UTF8.self)
      }
      if b == UInt8(ascii: "\\") {
        scratch.append(
          contentsOf: UnsafeRawBufferPointer(start: base + runStart, count: i - runStart))
        i = try decodeEscape(at: i)
        runStart = i
        continue
      }
      if b < 0x20 {
        throw controlCharacter(at: i)
      }
      i = b < 0x80 ? i + 1 : try skipMultibyte(at: i, lead: b)
    }
  }

  func controlCharacter(at offset: Int) -> JSONError {
    JSONError(
      offset: offset,
      reason: "Unescaped control character U+00\(Self.hex(byte(offset))) in a string")
  }

  /// Checks the UTF-8 sequence starting with `lead` (at least 0x80) at `offset`.
  ///
  /// Accepts exactly the well-formed sequences of RFC 3629: no overlong forms, no encoded
  /// surrogates, nothing above U+10FFFF. Errors point at the first byte of the sequence.
  ///
  /// - Returns: The offset just past the sequence.
  @inline(__always)
  func skipMultibyte(at offset: Int, lead: UInt8) throws(JSONError) -> Int {
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      high = 0x9F
    case 0xF0:
      length = 4
      low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      high = 0x8F
    default:
      throw invalidUTF8(at: offset)
    }
    guard offset + 1 < end else { throw endOfInput }
    let second = byte(offset + 1)
    guard second >= low && second <= high else { throw invalidSequence(at: offset) }
    var k = 2
    while k < length {
      guard offset + k < end else { throw endOfInput }
      guard byte(offset + k) & 0xC0 == 0x80 else { throw invalidSequence(at: offset) }
      k += 1
    }
    return offset + length
  }

  /// A byte that cannot start a UTF-8 sequence.
  func invalidUTF8(at offset: Int) -> JSONError {
    JSONError(offset: offset, reason: "Invalid UTF-8 byte 0x\(Self.hex(byte(offset)))")
  }

  /// A valid lead byte at `offset` not followed by the continuation bytes it needs.
  func invalidSequence(at offset: Int) -> JSONError {
    JSONError(
      offset: offset,
      reason: "Invalid UTF-8 sequence starting with byte 0x\(Self.hex(byte(offset)))")
  }

  /// Decodes the escape whose backslash is at `offset` into `scratch`.
  ///
  /// - Returns: The offset just past the escape (past both halves of a surrogate pair).
  mutating func decodeEscape(at offset: Int) throws(JSONError) -> Int {
    guard offset + 1 < end else { throw endOfInput }
    let decoded: UInt8
    switch byte(offset + 1) {
    case UInt8(ascii: "\""): decoded = 0x22
    case UInt8(ascii: "\\"): decoded = 0x5C
    case UInt8(ascii: "/"): decoded = 0x2F
    case UInt8(ascii: "b"): decoded = 0x08
    case UInt8(ascii: "f"): decoded = 0x0C
    case UInt8(ascii: "n"): decoded = 0x0A
    case UInt8(ascii: "r"): decoded = 0x0D
    case UInt8(ascii: "t"): decoded = 0x09
    case UInt8(ascii: "u"):
      return try decodeUnicodeEscape(at: offset)
    default:
      throw JSONError(
        offset: offset + 1,
        reason: "Invalid escape character \(Self.describe(byte(offset + 1))) after '\\'")
    }
    scratch.append(decoded)
    return offset + 2
  }

  /// Decodes `\uXXXX`, or a `\uXXXX\uXXXX` surrogate pair, whose backslash is at `offset`.
  mutating func decodeUnicodeEscape(at offset: Int) throws(JSONError) -> Int {
    let unit = try hexQuad(escape: offset)
    var scalar = unit
    var next = offset + 6
    switch unit {
    case 0xD800...0xDBFF:
      guard next < end else { throw endOfInput }
      guard byte(next) == UInt8(ascii: "\\") else { throw unpairedHighSurrogate(at: offset) }
      guard next + 1 < end else { throw endOfInput }
      guard byte(next + 1) == UInt8(ascii: "u") else { throw unpairedHighSurrogate(at: offset) }
      let low = try hexQuad(escape: next)
      guard (0xDC00...0xDFFF).contains(low) else { throw unpairedHighSurrogate(at: offset) }
      scalar = 0x1_0000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
      next += 6
    case 0xDC00...0xDFFF:
      throw JSONError(
        offset: offset, reason: "Low surrogate escape without a preceding high surrogate")
    default:
      break
    }
    appendUTF8(scalar)
    return next
  }

  func unpairedHighSurrogate(at offset: Int) -> JSONError {
    JSONError(
      offset: offset, reason: "High surrogate escape is not followed by a low surrogate escape")
  }

  /// The four hex digits of the `\u` escape whose backslash is at `escape`.
  func hexQuad(escape: Int) throws(JSONError) -> UInt32 {
    var result: UInt32 = 0
    for offset in (escape + 2)..<(escape + 6) {
      guard offset < end else { throw endOfInput }
      let b = byte(offset)
      let digit: UInt8
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b &- UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b &- UInt8(ascii: "a") &+ 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b &- UInt8(ascii: "A") &+ 10
      default:
        throw JSONError(offset: offset, reason: "Expected four hex digits after '\\u'")
      }
      result = result << 4 | UInt32(digit)
    }
    return result
  }

  /// Appends the UTF-8 form of a Unicode scalar value (never a surrogate) to `scratch`.
  mutating func appendUTF8(_ scalar: UInt32) {
    switch scalar {
    case 0..<0x80:
      scratch.append(UInt8(scalar))
    case 0x80..<0x800:
      scratch.append(UInt8(0xC0 | scalar >> 6))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    case 0x800..<0x1_0000:
      scratch.append(UInt8(0xE0 | scalar >> 12))
      scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    default:
      scratch.append(UInt8(0xF0 | scalar >> 18))
      scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
      scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    }
  }
}
