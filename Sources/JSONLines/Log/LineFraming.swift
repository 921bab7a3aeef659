import StashBase
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How one line of a log is framed and checked.
///
/// Every line is one JSON object that starts with a fixed 18-byte prefix holding the CRC-32 of
/// the rest of the line (everything after the prefix, without the newline):
///
/// ```
/// {"crc":"1a2b3c4d","tx":7,"op":{...}}
/// └──── prefix ────┘└──── checksummed ───┘
/// ```
/// In Python: `zlib.crc32(line[18:]) == int(line[8:16], 16)`.
enum LineFraming {
  /// The length of `{"crc":"xxxxxxxx",`.
  static let prefixLength = 18
  /// The longest line a log may hold, in bytes without its newline: 1 MiB.
  ///
  /// A save that would write a longer line is refused before anything is written
  /// (``LogError/lineTooLong(path:length:limit:)``), and reading treats a longer line as
  /// invalid without keeping its bytes, so that a huge line can cost neither memory nor time.
  /// Records are far smaller (``LogLimits``).
  static let maximumLineLength = LogLimits.maximumLineLength
  /// Why a line longer than ``maximumLineLength`` is invalid.
  static let tooLongReason =
    "it is longer than the \(LogLimits.maximumLineLength >> 20) MiB a line may hold"
  private static let opening = Array(#"{"crc":""#.utf8)
  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// Appends one framed line (with its newline) whose body `write` appends after the prefix.
  ///
  /// - Parameters:
  ///   - out: The buffer to append to.
  ///   - write: Appends the rest of the object, e.g. `"tx":7,"op":{...}}`.
  static func appendLine(to out: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
    let start = out.count
    out.append(contentsOf: opening)
    out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 8))
    out.append(UInt8(ascii: "\""))
    out.append(UInt8(ascii: ","))
    let bodyStart = out.count
    write(&out)
    let crc = out.withUnsafeBytes { raw in
      CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[bodyStart...]))
    }
    for index in 0..<8 {
      let nibble = (crc >> UInt32(28 - 4 * index)) & 0xF
      out[start + opening.count + index] = hexDigits[Int(nibble)]
    }
    out.append(UInt8(ascii: "\n"))
  }

  /// Checks a line's checksum and parses it.
  ///
  /// - Parameter line: The line's bytes without its newline.
  /// - Returns: The parsed object, or why the line is not valid.
  static func decode(_ line: UnsafeRawBufferPointer) -> Result<JSONObject, LineProblem> {
    if let problem = checksumProblem(line) { return .failure(problem) }
    return parse(line)
  }

  /// Parses a line whose checksum holds.
  ///
  /// - Parameter line: The line's bytes without its newline.
  /// - Returns: The parsed object, or why the line is not valid.
  static func parse(_ line: UnsafeRawBufferPointer) -> Result<JSONObject, LineProblem> {
    do {
      guard case .object(let object) = try JSONParser.parse(line) else {
        return .failure(.malformed("it is not a JSON object"))
      }
      return .success(object)
    } catch {
      return .failure(.malformed("its JSON does not parse: \(error.reason)"))
    }
  }

  /// The transaction number and the `op` object's bytes of an operation line framed exactly
  /// as ``appendLine(to:_:)`` frames a save's (`{"crc":"…","tx":7,"op":{…}}`), or `nil`. The
  /// bytes are not checked to be JSON: the caller reads them whole, or parses the line.
  ///
  /// - Parameter line: The line's bytes without its newline (its checksum already checked).
  static func operationFrame(
    _ line: UnsafeRawBufferPointer
  ) -> (sequence: Int64, operation: UnsafeRawBufferPointer)? {
    let tx = #""tx":"#.utf8
    var index = prefixLength
    guard line.count > index + tx.count, line[index...].starts(with: tx) else { return nil }
    index += tx.count
    // A plain positive integer, as the writer writes it (at most 18 digits: no overflow).
    let first = index
    var sequence: Int64 = 0
    while index < line.count, index - first < 18 {
      let digit = line[index] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      sequence = sequence * 10 + Int64(digit)
      index += 1
    }
    guard index > first, line[first] != UInt8(ascii: "0") else { return nil }
    let op = #","op":"#.utf8
    guard line.count > index + op.count, line[index...].starts(with: op),
      line[line.count - 1] == UInt8(ascii: "}")
    else { return nil }
    index += op.count
    return (sequence, UnsafeRawBufferPointer(rebasing: line[index..<(line.count - 1)]))
  }

  /// Why a line's checksum prefix is malformed or does not match the bytes after it; `nil`
  /// when it holds (the JSON is not parsed).
  ///
  /// - Parameter line: The line's bytes without its newline.
  static func checksumProblem(_ line: UnsafeRawBufferPointer) -> LineProblem? {
    guard line.count > prefixLength, line.starts(with: opening),
      line[16] == UInt8(ascii: "\""), line[17] == UInt8(ascii: ",")
    else { return .malformed("it does not start with a checksum") }
    var stored: UInt32 = 0
    for index in 8..<16 {
      guard let nibble = hexValue(line[index]) else {
        return .malformed("its checksum is not hexadecimal")
      }
      stored = stored << 4 | nibble
    }
    let actual = CRC32.checksum(UnsafeRawBufferPointer(rebasing: line[prefixLength...]))
    return actual == stored ? nil : .checksum
  }

  /// The offset of the first newline in `bytes` at or after `start`, or `nil`.
  static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard start < bytes.count, let base = bytes.baseAddress else { return nil }
    guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else {
      return nil
    }
    return base.distance(to: UnsafeRawPointer(found))
  }

  private static func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    default: nil
    }
  }
}

/// Why a line is not valid.
enum LineProblem: Error, Equatable {
  /// The checksum does not match the bytes.
  case checksum
  /// The line is not a framed JSON object.
  case malformed(String)
  /// The line has no newline: the write stopped inside it.
  case unterminated

  var reason: String {
    switch self {
    case .checksum: "its checksum does not match its bytes"
    case .malformed(let why): why
    case .unterminated: "it ends without a newline (a write stopped inside it)"
    }
  }
}
