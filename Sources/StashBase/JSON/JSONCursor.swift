/// Reads JSON text of a known shape front to back, without building a tree: for the lines a
/// store or a segment holds hundreds of thousands of (issue 26, item 5), whose members come in
/// the order their writer puts them.
///
/// A cursor matches the fixed parts of a line byte for byte (``take(_:)-(StaticString)``) and
/// reads its values with the parser's own scanners (``string()``, ``scalar()``), so a value it
/// reads is exactly the value ``JSONParser`` reads from the same bytes. Every method answers
/// `nil` or `false` rather than throwing, leaving the cursor where it was: a caller that meets
/// anything it does not expect gives up and parses the line into a tree, whose errors are the
/// ones reported.
package struct JSONCursor: ~Copyable {
  private var scanner: JSONScanner

  /// A cursor at the first byte of `bytes`, which must outlive it.
  package init(_ bytes: UnsafeRawBufferPointer) {
    // An empty buffer may have no address; a cursor over it matches nothing.
    let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
    scanner = JSONScanner(
      base: base, count: bytes.baseAddress == nil ? 0 : bytes.count,
      members: UnsafeMutableBufferPointer(start: nil, count: 0),
      frames: UnsafeMutableBufferPointer(start: nil, count: 0))
  }

  /// Whether every byte was read.
  package var isAtEnd: Bool { scanner.index == scanner.end }

  /// The next byte, if any.
  package var next: UInt8? { scanner.index < scanner.end ? scanner.byte(scanner.index) : nil }

  /// Skips `text` when the bytes at the cursor are exactly it.
  package mutating func take(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    guard scanner.end - scanner.index >= count else { return false }
    let expected = text.utf8Start
    for offset in 0..<count where scanner.byte(scanner.index + offset) != expected[offset] {
      return false
    }
    scanner.index += count
    return true
  }

  /// Skips `bytes` when the bytes at the cursor are exactly them.
  package mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard scanner.end - scanner.index >= count else { return false }
    for offset in 0..<count where scanner.byte(scanner.index + offset) != bytes[offset] {
      return false
    }
    scanner.index += count
    return true
  }

  /// Skips one byte when it is `byte`.
  package mutating func take(byte: UInt8) -> Bool {
    guard scanner.index < scanner.end, scanner.byte(scanner.index) == byte else { return false }
    scanner.index += 1
    return true
  }

  /// Reads a string literal (quotes included), as the parser reads it.
  package mutating func string() -> String? {
    guard take(byte: UInt8(ascii: "\"")) else { return nil }
    let start = scanner.index
    do throws(JSONError) {
      return try scanner.parseString()
    } catch {
      scanner.index = start - 1
      return nil
    }
  }

  /// Reads a string, a number, `true`, `false` or `null` as the parser reads it; `nil` for
  /// an array, an object or anything that does not parse.
  package mutating func scalar() -> JSONValue? {
    guard let b = next else { return nil }
    let start = scanner.index
    do throws(JSONError) {
      switch b {
      case UInt8(ascii: "\""):
        scanner.index += 1
        return .string(try scanner.parseString())
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return try scanner.parseNumber()
      case UInt8(ascii: "t"):
        return take("true") ? .bool(true) : nil
      case UInt8(ascii: "f"):
        return take("false") ? .bool(false) : nil
      case UInt8(ascii: "n"):
        return take("null") ? .null : nil
      default:
        return nil
      }
    } catch {
      scanner.index = start
      return nil
    }
  }

  /// Reads an object without whitespace whose values are scalars or such objects, nested at
  /// most `depth` levels (a photo's reference, a counter), as the parser reads it; `nil` for
  /// anything else.
  package mutating func smallObject(depth: Int = 2) -> JSONValue? {
    let start = scanner.index
    guard depth > 0, take(byte: UInt8(ascii: "{")) else { return nil }
    var members: [(String, JSONValue)] = []
    if take(byte: UInt8(ascii: "}")) { return .object(JSONObject()) }
    repeat {
      guard let key = string(), take(byte: UInt8(ascii: ":")) else {
        scanner.index = start
        return nil
      }
      let value = next == UInt8(ascii: "{") ? smallObject(depth: depth - 1) : scalar()
      guard let value else {
        scanner.index = start
        return nil
      }
      members.append((key, value))
    } while take(byte: UInt8(ascii: ","))
    guard take(byte: UInt8(ascii: "}")) else {
      scanner.index = start
      return nil
    }
    return .object(JSONObject(members))
  }

  /// Reads an integer literal the parser reads as an integer.
  package mutating func integer() -> Int64? {
    let start = scanner.index
    guard case .integer(let number)? = scalar() else {
      scanner.index = start
      return nil
    }
    return number
  }

  /// Reads a string literal of exactly `count` bytes between its quotes when `read` accepts
  /// those bytes (unchecked), and says whether it did (if not, the cursor stays). Only for a
  /// `read` that accepts nothing but plain ASCII (no escape, no control character), which the
  /// parser reads as those very characters. Not generic: a generic cursor method runs
  /// unspecialized in the modules that read lines, asking the runtime for `Optional`'s
  /// metadata at every call (about 450 instructions, at every record id read).
  package mutating func quoted(count: Int, _ read: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    let start = scanner.index
    guard scanner.end - start >= count + 2, scanner.byte(start) == UInt8(ascii: "\""),
      scanner.byte(start + count + 1) == UInt8(ascii: "\""),
      read(UnsafeRawBufferPointer(start: scanner.base + start + 1, count: count))
    else { return false }
    scanner.index = start + count + 2
    return true
  }

  /// Where the cursor is in its bytes: a reader of several tokens that may refuse part way
  /// puts it back where it started, for another reader to try.
  package var offset: Int {
    get { scanner.index }
    set { scanner.index = newValue }
  }

  /// Reads `true` or `false`.
  package mutating func bool() -> Bool? {
    if take("true") { return true }
    if take("false") { return false }
    return nil
  }

  /// Reads a string of exactly 64 lowercase hexadecimal digits (as every writer writes a
  /// digest) and gives its 32 bytes; `nil` for anything else, including escapes and
  /// uppercase digits, which the parser would read but no writer writes.
  package mutating func digest() -> SHA256Digest? {
    let start = scanner.index
    guard scanner.end - start >= 66, scanner.byte(start) == UInt8(ascii: "\""),
      scanner.byte(start + 65) == UInt8(ascii: "\"")
    else { return nil }
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    for word in 0..<4 {
      var value: UInt64 = 0
      for offset in 0..<16 {
        let unit = scanner.byte(start + 1 + word * 16 + offset)
        let nibble: UInt8
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = unit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = unit &- UInt8(ascii: "a") &+ 10
        default: return nil
        }
        value = value << 4 | UInt64(nibble)
      }
      switch word {
      case 0: words.0 = value
      case 1: words.1 = value
      case 2: words.2 = value
      default: words.3 = value
      }
    }
    scanner.index = start + 66
    return SHA256Digest(words: words)
  }
}
