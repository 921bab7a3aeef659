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

  /// Hands each record of a CSV text to `body`, in order, with the line it starts on
  /// (1-based), without holding the records: an import makes each row's item as it is read,
  /// so its memory never holds every row's fields beside the items made of them.
  ///
  /// Read as UTF-8 bytes: commas, quotes and line breaks are ASCII, so they are never part of
  /// another character's bytes, and one followed by a combining mark (a single Swift
  /// `Character` with it) is still a separator or a quote, as spreadsheets read it. A field
  /// without quotes is made from its bytes in place, in one step (copying it a byte at a time
  /// into a buffer first was most of the parse).
  ///
  /// - Parameters:
  ///   - text: The CSV text.
  ///   - problem: Makes the error to throw for an unfinished quote or stray text after one.
  ///   - body: Takes a record's line and fields; the fields array is handed out again for the
  ///     next record, so keep the strings, not the array.
  /// - Throws: What `problem` makes for the first such problem, or what `body` throws; the
  ///   records after it are not read.
  static func forEachRecord<E: Error>(
    in text: String, problem: (CSVProblem) -> E,
    _ body: (_ line: Int, _ fields: [String]) throws(E) -> Void
  ) throws(E) {
    var text = text
    let read = text.withUTF8 { bytes in
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
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
    while true {
      // At the start of a field.
      if index < count && bytes[index] == quote {
        index += 1
        quoted.removeAll(keepingCapacity: true)
        var start = index
        var closed = false
        while index < count {
          let byte = bytes[index]
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
        fields.append(String(decoding: quoted, as: UTF8.self))
        if index < count && !isBreak(bytes[index]) {
          throw problem(CSVProblem(line: line, reason: "text after a closing quote"))
        }
      } else {
        // Without quotes: to the next comma or line break (a quote inside is a quote).
        let start = index
        while index < count && !isBreak(bytes[index]) { index += 1 }
        fields.append(text(start..<index))
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
}
