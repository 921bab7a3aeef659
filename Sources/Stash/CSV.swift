/// The small part of RFC 4180 that `stash export` writes and `stash import` reads.
///
/// Fields are separated by commas and records by line breaks (`\n` or `\r\n`). A field that
/// holds a comma, a quote, a line break, or leading or trailing spaces is written in double
/// quotes, with quotes doubled inside. Reading accepts exactly that.
enum CSV {
  /// One record as a line, without its line break.
  static func line(_ fields: [String]) -> String {
    fields.map(quoted).joined(separator: ",")
  }

  private static func quoted(_ field: String) -> String {
    let needsQuotes =
      field.utf8.contains { $0 == comma || $0 == quote || $0 == newline || $0 == carriageReturn }
      || field.utf8.first == space || field.utf8.last == space
    guard needsQuotes else { return field }
    var out = [quote]
    for byte in field.utf8 {
      if byte == quote { out.append(quote) }
      out.append(byte)
    }
    out.append(quote)
    return String(decoding: out, as: UTF8.self)
  }

  private static let comma = UInt8(ascii: ",")
  private static let quote = UInt8(ascii: "\"")
  private static let newline = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")
  private static let space = UInt8(ascii: " ")

  /// Hands each record of a CSV file's bytes to `body`, in order, with the line it starts on
  /// (1-based), without holding the records: an import makes each row's item as it is read,
  /// so its memory never holds every row's fields beside the items made of them.
  ///
  /// The bytes are checked as UTF-8 as each field is made of them (every byte outside the
  /// fields is an ASCII comma, quote or line break), not in a pass over the whole file and a
  /// copy of it as a string first.
  ///
  /// Read as UTF-8 bytes: commas, quotes and line breaks are ASCII, so they are never part of
  /// another character's bytes, and one followed by a combining mark (a single Swift
  /// `Character` with it) is still a separator or a quote, as spreadsheets read it. A field
  /// without quotes is made from its bytes in place, in one step (copying it a byte at a time
  /// into a buffer first was most of the parse).
  ///
  /// - Parameters:
  ///   - bytes: The CSV file's bytes.
  ///   - problem: Makes the error to throw for an unfinished quote, stray text after one, or
  ///     bytes that are not UTF-8.
  ///   - body: Takes a record's line and fields; the fields array is handed out again for the
  ///     next record, so keep the strings, not the array.
  /// - Throws: What `problem` makes for the first such problem, or what `body` throws; the
  ///   records after it are not read.
  static func forEachRecord<E: Error>(
    in bytes: [UInt8], problem: (CSVProblem) -> E,
    _ body: (_ line: Int, _ fields: [String]) throws(E) -> Void
  ) throws(E) {
    let read = bytes.withUnsafeBufferPointer { bytes in
      Result { () throws(E) in try forEachRecord(in: bytes, problem: problem, body) }
    }
    try read.get()
  }

  private static func forEachRecord<E: Error>(
    in bytes: UnsafeBufferPointer<UInt8>, problem: (CSVProblem) -> E,
    _ body: (_ line: Int, _ fields: [String]) throws(E) -> Void
  ) throws(E) {
    var fields = [String]()
    var quoted = [UInt8]()  // a quoted field's bytes, its doubled quotes made single
    var line = 1
    var recordLine = 1
    var index = 0
    let count = bytes.count
    // A field of ASCII bytes (`bits`, every byte or-ed, below 0x80) needs no check; the
    // check of the others is generic code, which looks up its types' metadata on every call.
    func text(_ bytes: UnsafeBufferPointer<UInt8>, bits: UInt8) throws(E) -> String {
      if bits < 0x80 { return String(decoding: bytes, as: UTF8.self) }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw problem(CSVProblem(line: line, reason: "bytes that are not UTF-8", isNotUTF8: true))
      }
      return text
    }
    while true {
      // At the start of a field.
      if index < count && bytes[index] == quote {
        index += 1
        quoted.removeAll(keepingCapacity: true)
        var start = index
        var closed = false
        var bits: UInt8 = 0
        while index < count {
          let byte = bytes[index]
          bits |= byte
          if byte == quote {
            quoted.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            index += 1
            guard index < count && bytes[index] == quote else {
              closed = true
              break
            }
            quoted.append(quote)
            index += 1
            start = index
            continue
          }
          if byte == newline { line += 1 }
          index += 1
        }
        guard closed else {
          throw problem(CSVProblem(line: recordLine, reason: "an unclosed quote"))
        }
        fields.append(
          try quoted.withUnsafeBufferPointer { buffer throws(E) in try text(buffer, bits: bits) })
        if index < count && !isBreak(bytes[index]) {
          throw problem(CSVProblem(line: line, reason: "text after a closing quote"))
        }
      } else {
        // Without quotes: to the next comma or line break (a quote inside is a quote).
        let start = index
        var bits: UInt8 = 0
        while index < count && !isBreak(bytes[index]) {
          bits |= bytes[index]
          index += 1
        }
        fields.append(try text(UnsafeBufferPointer(rebasing: bytes[start..<index]), bits: bits))
      }
      // After a field: a comma, a line break, or the end.
      if index < count && bytes[index] == comma {
        index += 1
        continue
      }
      if fields.count != 1 || !fields[0].isEmpty { try body(recordLine, fields) }
      fields.removeAll(keepingCapacity: true)
      guard index < count else { return }
      if bytes[index] == carriageReturn && index + 1 < count && bytes[index + 1] == newline {
        index += 1
      }
      index += 1
      line += 1
      recordLine = line
    }
  }

  /// Whether `byte` ends a field: a comma or a line break.
  private static func isBreak(_ byte: UInt8) -> Bool {
    byte == comma || byte == newline || byte == carriageReturn
  }
}

/// Why a CSV text could not be read.
struct CSVProblem: Error {
  let line: Int
  let reason: String
  /// Whether the file is not UTF-8 (said of the whole file, not of a line).
  var isNotUTF8 = false
}
