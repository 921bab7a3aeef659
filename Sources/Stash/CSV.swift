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

  /// The records of a CSV text, each with the line it starts on (1-based).
  ///
  /// Read as UTF-8 bytes: commas, quotes and line breaks are ASCII, so they are never part of
  /// another character's bytes, and one followed by a combining mark (a single Swift
  /// `Character` with it) is still a separator or a quote, as spreadsheets read it. Reading
  /// bytes is also what makes a 100,000-row import cost a fraction of what walking its
  /// `Character`s did.
  ///
  /// - Throws: A message naming the line of an unfinished quote or stray text after one.
  static func records(_ text: String) throws(CSVProblem) -> [(line: Int, fields: [String])] {
    var text = text
    let parsed = text.withUTF8 { bytes in Result { () throws(CSVProblem) in try records(bytes) } }
    return try parsed.get()
  }

  private static func records(_ bytes: UnsafeBufferPointer<UInt8>) throws(CSVProblem) -> [(
    line: Int, fields: [String]
  )] {
    var records = [(line: Int, fields: [String])]()
    var fields = [String]()
    var field = [UInt8]()
    var line = 1
    var recordLine = 1
    var inQuotes = false
    var afterQuote = false
    var index = 0
    let count = bytes.count
    func endField() {
      fields.append(String(decoding: field, as: UTF8.self))
      field.removeAll(keepingCapacity: true)
      afterQuote = false
    }
    while index < count {
      let byte = bytes[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < count && bytes[index] == quote {
            field.append(quote)
            index += 1
          } else {
            inQuotes = false
            afterQuote = true
          }
        } else {
          if byte == newline { line += 1 }
          field.append(byte)
        }
        continue
      }
      switch byte {
      case comma:
        endField()
      case newline, carriageReturn:
        if byte == carriageReturn && index < count && bytes[index] == newline { index += 1 }
        endField()
        if fields != [""] { records.append((recordLine, fields)) }
        fields = []
        line += 1
        recordLine = line
      case quote where field.isEmpty && !afterQuote:
        inQuotes = true
      default:
        guard !afterQuote else {
          throw CSVProblem(line: line, reason: "text after a closing quote")
        }
        field.append(byte)
      }
    }
    guard !inQuotes else { throw CSVProblem(line: recordLine, reason: "an unclosed quote") }
    endField()
    if fields != [""] { records.append((recordLine, fields)) }
    return records
  }
}

/// Why a CSV text could not be read.
struct CSVProblem: Error {
  let line: Int
  let reason: String
}
