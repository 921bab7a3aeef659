/// The bytes ``JSONWriter`` writes, in one buffer it grows itself: appending a byte or a run
/// of bytes is a capacity check and a copy, without the generic machinery (uniqueness checks,
/// retains of the string being copied) that `Array.append(contentsOf:)` costs on every one of
/// the dozens of strings a line holds.
struct ByteSink: ~Copyable {
  private var base: UnsafeMutablePointer<UInt8>
  private var count = 0
  private var capacity: Int

  init(capacity: Int) {
    self.capacity = max(16, capacity)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The bytes written, as an array.
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Appends the bytes written to `buffer`.
  func append(to buffer: inout [UInt8]) {
    buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
  }

  @inline(__always)
  private mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(to: count + extra) }
  }

  private mutating func grow(to needed: Int) {
    let larger = max(needed, capacity * 2)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
    moved.update(from: base, count: count)
    base.deallocate()
    base = moved
    capacity = larger
  }

  @inline(__always)
  mutating func byte(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func run(_ start: UnsafePointer<UInt8>, _ length: Int) {
    guard length > 0 else { return }
    reserve(length)
    (base + count).update(from: start, count: length)
    count += length
  }

  private mutating func ascii(_ text: StaticString) {
    run(text.utf8Start, text.utf8CodeUnitCount)
  }

  /// Writes a value as ``JSONWriter/write(_:into:)`` describes.
  mutating func write(_ value: JSONValue) {
    switch value {
    case .null:
      ascii("null")
    case .bool(let flag):
      ascii(flag ? "true" : "false")
    case .integer(let number):
      writeInteger(number)
    case .double(let number):
      precondition(number.isFinite, "JSONWriter cannot write the non-finite double \(number)")
      writeString(number.description, quoted: false)
    case .string(let string):
      writeString(string)
    case .array(let elements):
      byte(UInt8(ascii: "["))
      var first = true
      for element in elements {
        if !first { byte(UInt8(ascii: ",")) }
        first = false
        write(element)
      }
      byte(UInt8(ascii: "]"))
    case .object(let object):
      byte(UInt8(ascii: "{"))
      var first = true
      for member in object.members {
        if !first { byte(UInt8(ascii: ",")) }
        first = false
        writeString(member.key)
        byte(UInt8(ascii: ":"))
        write(member.value)
      }
      byte(UInt8(ascii: "}"))
    }
  }

  /// Writes a string as a quoted, escaped JSON string literal (`quoted: false`: its bytes
  /// as they are, for a number's text, which needs no escape).
  mutating func writeString(_ string: String, quoted: Bool = true) {
    var string = string
    string.withUTF8 { utf8 in
      guard quoted else {
        if let start = utf8.baseAddress { run(start, utf8.count) }
        return
      }
      reserve(utf8.count + 2)
      byte(UInt8(ascii: "\""))
      appendEscaped(utf8)
      byte(UInt8(ascii: "\""))
    }
  }

  /// Appends UTF-8 bytes with the characters JSON requires escaped, copying unescaped runs.
  private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    guard let base = utf8.baseAddress else { return }
    let count = utf8.count
    var runStart = 0
    var i = 0
    while true {
      // Skip eight plain bytes at a time, then finish byte by byte.
      while i + 8 <= count {
        let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        let mask = JSONWriter.escapeMask(word)
        if mask != 0 {
          i += mask.trailingZeroBitCount >> 3
          break
        }
        i += 8
      }
      while i < count && !JSONWriter.needsEscape(base[i]) {
        i += 1
      }
      guard i < count else { break }
      run(base + runStart, i - runStart)
      appendEscape(for: base[i])
      i += 1
      runStart = i
    }
    run(base + runStart, count - runStart)
  }

  /// Appends the escape sequence for `"`, `\` or a control character.
  private mutating func appendEscape(for b: UInt8) {
    byte(UInt8(ascii: "\\"))
    switch b {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte(b)
    case 0x08: byte(UInt8(ascii: "b"))
    case 0x09: byte(UInt8(ascii: "t"))
    case 0x0A: byte(UInt8(ascii: "n"))
    case 0x0C: byte(UInt8(ascii: "f"))
    case 0x0D: byte(UInt8(ascii: "r"))
    default:
      let hexDigits: StaticString = "0123456789abcdef"
      ascii("u00")
      byte(hexDigits.utf8Start[Int(b >> 4)])
      byte(hexDigits.utf8Start[Int(b & 0xF)])
    }
  }

  /// Appends a decimal integer without going through `String`.
  private mutating func writeInteger(_ number: Int64) {
    if number < 0 { byte(UInt8(ascii: "-")) }
    var magnitude = number.magnitude
    reserve(20)
    // The digits, last first, at the end of the 20 bytes reserved, then moved down.
    var digits = 0
    let end = base + count + 20
    repeat {
      digits += 1
      (end - digits).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
      magnitude /= 10
    } while magnitude != 0
    UnsafeMutableRawPointer(base + count).copyMemory(
      from: UnsafeRawPointer(end - digits), byteCount: digits)  // may overlap: a memmove
    count += digits
  }
}
