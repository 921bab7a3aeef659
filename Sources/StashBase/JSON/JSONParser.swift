/// Reads JSON text (RFC 8259, strictly) into ``JSONValue``s.
///
/// The parser makes a single pass over the bytes without recursion: nested arrays and objects
/// are tracked on an explicit stack limited to 512 levels, so hostile input such as 100,000
/// opening brackets fails with an error rather than exhausting the call stack. It accepts
/// exactly the texts RFC 8259 allows and rejects everything else, including:
///
/// - a byte order mark, UTF-16 input, and invalid UTF-8 anywhere (overlong forms, encoded
///   surrogates, truncated sequences, bytes 0xF5–0xFF);
/// - escapes of lone or unpaired surrogates such as `"\ud800"`, which no `String` can hold;
/// - number literals whose magnitude rounds beyond `Double.greatestFiniteMagnitude`.
///
/// Literals whose magnitude is too small for a `Double` are accepted and read as `0.0` or the
/// nearest subnormal. Integer literals beyond `Int64` are read as correctly rounded doubles.
public enum JSONParser {
  /// The deepest nesting of arrays and objects the parser accepts.
  static let maximumDepth = 512

  /// Parses exactly one JSON value from UTF-8 bytes.
  ///
  /// Leading and trailing JSON whitespace (space, tab, line feed, carriage return) is allowed;
  /// anything else after the value is an error. The bytes are only read during the call.
  ///
  /// - Parameters:
  ///   - bytes: The UTF-8 encoded JSON text.
  /// - Returns: The value the text denotes.
  /// - Throws: A ``JSONError`` with the byte offset of the first problem.
  public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw JSONError(offset: 0, reason: "Unexpected end of input")
    }
    // The scratch stacks start on the stack, so that a typical line needs no heap memory
    // beyond the values it produces.
    let result = withUnsafeTemporaryAllocation(
      of: JSONObject.Member.self, capacity: JSONScanner.initialMembers
    ) { members in
      withUnsafeTemporaryAllocation(of: Int.self, capacity: JSONScanner.initialFrames) { frames in
        var scanner = JSONScanner(base: base, count: bytes.count, members: members, frames: frames)
        do throws(JSONError) {
          return Result<JSONValue, JSONError>.success(try scanner.parseDocument())
        } catch {
          return .failure(error)
        }
      }
    }
    return try result.get()
  }

  /// Parses exactly one JSON value from an array of UTF-8 bytes.
  ///
  /// Behaves exactly like ``parse(_:)-(UnsafeRawBufferPointer)`` on the array's contents.
  ///
  /// - Parameters:
  ///   - bytes: The UTF-8 encoded JSON text.
  /// - Returns: The value the text denotes.
  /// - Throws: A ``JSONError`` with the byte offset of the first problem.
  public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
    try bytes.withUnsafeBytes { parseResult($0) }.get()
  }

  /// Parses exactly one JSON value from a string.
  ///
  /// The string's UTF-8 form is parsed; offsets in errors are offsets into that form.
  ///
  /// - Parameters:
  ///   - text: The JSON text.
  /// - Returns: The value the text denotes.
  /// - Throws: A ``JSONError`` with the UTF-8 byte offset of the first problem.
  public static func parse(_ text: String) throws(JSONError) -> JSONValue {
    var text = text
    return try text.withUTF8 { parseResult(UnsafeRawBufferPointer($0)) }.get()
  }

  /// The outcome of ``parse(_:)-(UnsafeRawBufferPointer)`` as a value, for use inside the
  /// standard library's untyped-throwing `withUnsafeBytes` and `withUTF8`.
  private static func parseResult(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONError> {
    do throws(JSONError) {
      return .success(try parse(bytes))
    } catch {
      return .failure(error)
    }
  }
}

/// The state of one parse: the input, the read position, and the partly built containers.
struct JSONScanner: ~Copyable {
  let base: UnsafeRawPointer
  let end: Int
  var index = 0
  /// Decoded bytes of a string with escapes.
  var scratch: [UInt8] = []
  /// The elements of the open arrays, innermost last.
  var values = ScratchStack<JSONValue>(startingIn: UnsafeMutableBufferPointer(start: nil, count: 0))
  /// The members of the open objects, innermost last. The member being read is pushed with a
  /// placeholder value as soon as its key has been read.
  var members: ScratchStack<JSONObject.Member>
  /// The open containers, innermost last: where their children start in `values` or
  /// `members`, shifted left by one, with the low bit set for objects.
  var frames: ScratchStack<Int>

  /// How many members and frames fit in the memory a parse starts with.
  static let initialMembers = 24
  static let initialFrames = 16

  init(
    base: UnsafeRawPointer, count: Int, members: UnsafeMutableBufferPointer<JSONObject.Member>,
    frames: UnsafeMutableBufferPointer<Int>
  ) {
    self.base = base
    self.end = count
    self.members = ScratchStack(startingIn: members)
    self.frames = ScratchStack(startingIn: frames)
  }

  @inline(__always)
  func byte(_ offset: Int) -> UInt8 {
    base.load(fromByteOffset: offset, as: UInt8.self)
  }

  @inline(__always)
  mutating func skipWhitespace() {
    while index < end {
      let b = byte(index)
      guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
      index += 1
    }
  }

  /// The error for input that ends where more was needed.
  var endOfInput: JSONError {
    JSONError(offset: end, reason: "Unexpected end of input")
  }

  /// A readable name for a byte in error messages: `'x'` for printable ASCII, else hex.
  static func describe(_ b: UInt8) -> String {
    if b >= 0x21 && b < 0x7F {
      return "'" + String(UnicodeScalar(b)) + "'"
    }
    return "byte 0x" + hex(b)
  }

  /// Two uppercase hex digits.
  static func hex(_ b: UInt8) -> String {
    let digits: [Character] = [
      "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F",
    ]
    return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
  }

  mutating func parseDocument() throws(JSONError) -> JSONValue {
    if end >= 3 && byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF {
      throw JSONError(offset: 0, reason: "A byte order mark is not allowed")
    }
    var value: JSONValue
    parsing: while true {
      skipWhitespace()
      guard index < end else { throw endOfInput }
      let b = byte(index)
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        value = .string(try parseString())
      case UInt8(ascii: "{"):
        try open(isObject: true)
        index += 1
        skipWhitespace()
        if index < end && byte(index) == UInt8(ascii: "}") {
          index += 1
          _ = frames.pop()
          value = .object(JSONObject())
        } else {
          try parseKey()
          continue parsing
        }
      case UInt8(ascii: "["):
        try open(isObject: false)
        index += 1
        skipWhitespace()
        if index < end && byte(index) == UInt8(ascii: "]") {
          index += 1
          _ = frames.pop()
          value = .array([])
        } else {
          continue parsing
        }
      case UInt8(ascii: "t"):
        try expectLiteral(0x7472_7565, "true")
        value = .bool(true)
      case UInt8(ascii: "f"):
        index += 1
        try expectLiteral(0x616C_7365, "false")
        value = .bool(false)
      case UInt8(ascii: "n"):
        try expectLiteral(0x6E75_6C6C, "null")
        value = .null
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        value = try parseNumber()
      default:
        throw JSONError(offset: index, reason: "Expected a value but found \(Self.describe(b))")
      }

      // Store the value in its container; close every container that ends right after it.
      while frames.count > 0 {
        let frame = frames.top
        skipWhitespace()
        guard index < end else { throw endOfInput }
        let next = byte(index)
        if frame & 1 != 0 {
          members.topPointer.pointee.value = value
          if next == UInt8(ascii: ",") {
            index += 1
            try parseKey()
            continue parsing
          }
          guard next == UInt8(ascii: "}") else {
            throw JSONError(offset: index, reason: "Expected ',' or '}' after an object member")
          }
          index += 1
          value = .object(JSONObject(members: members.popArray(from: frame >> 1)))
        } else {
          values.push(value)
          if next == UInt8(ascii: ",") {
            index += 1
            continue parsing
          }
          guard next == UInt8(ascii: "]") else {
            throw JSONError(offset: index, reason: "Expected ',' or ']' after an array element")
          }
          index += 1
          value = .array(values.popArray(from: frame >> 1))
        }
        _ = frames.pop()
      }
      skipWhitespace()
      guard index == end else {
        throw JSONError(offset: index, reason: "Unexpected data after the JSON value")
      }
      return value
    }
  }

  /// Records an opened container, enforcing the depth limit.
  @inline(__always)
  mutating func open(isObject: Bool) throws(JSONError) {
    guard frames.count < JSONParser.maximumDepth else {
      throw JSONError(
        offset: index, reason: "Nesting deeper than \(JSONParser.maximumDepth) levels")
    }
    frames.push(isObject ? members.count << 1 | 1 : values.count << 1)
  }

  /// Reads `"key" :` and pushes a member with a placeholder value for it.
  @inline(__always)
  mutating func parseKey() throws(JSONError) {
    skipWhitespace()
    guard index < end else { throw endOfInput }
    guard byte(index) == UInt8(ascii: "\"") else {
      throw JSONError(offset: index, reason: "Expected a string key in an object")
    }
    index += 1
    let key = try parseString()
    skipWhitespace()
    guard index < end else { throw endOfInput }
    guard byte(index) == UInt8(ascii: ":") else {
      throw JSONError(offset: index, reason: "Expected ':' after an object key")
    }
    index += 1
    members.push(JSONObject.Member(key: key, value: .null))
  }

  /// Checks the four bytes at `index` against `expected` (big-endian ASCII) and skips them.
  @inline(__always)
  mutating func expectLiteral(_ expected: UInt32, _ literal: StaticString) throws(JSONError) {
    if index + 4 <= end {
      let word = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: index, as: UInt32.self))
      if word == expected {
        index += 4
        return
      }
    }
    // Find the first byte that differs, to point at it.
    for shift in stride(from: 24, through: 0, by: -8) {
      guard index < end else { throw endOfInput }
      guard byte(index) == UInt8(truncatingIfNeeded: expected >> UInt32(shift)) else { break }
      index += 1
    }
    throw JSONError(offset: index, reason: "Invalid literal, expected '\(literal)'")
  }
}
