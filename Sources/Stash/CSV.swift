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
      field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
      || field.first == " " || field.last == " "
    guard needsQuotes else { return field }
    return "\"" + field.replacingQuotes() + "\""
  }

  /// The records of a CSV text, each with the line it starts on (1-based).
  ///
  /// - Throws: A message naming the line of an unfinished quote or stray text after one.
  static func records(_ text: String) throws(CSVProblem) -> [(line: Int, fields: [String])] {
    var records = [(line: Int, fields: [String])]()
    var fields = [String]()
    var field = ""
    var line = 1
    var recordLine = 1
    var inQuotes = false
    var afterQuote = false
    var characters = Array(text).makeIterator()
    var pending = characters.next()
    while let character = pending {
      pending = characters.next()
      if inQuotes {
        if character == "\"" {
          if pending == "\"" {
            field.append("\"")
            pending = characters.next()
          } else {
            inQuotes = false
            afterQuote = true
          }
        } else {
          if character == "\n" || character == "\r\n" { line += 1 }
          field.append(character)
        }
        continue
      }
      switch character {
      case ",":
        fields.append(field)
        field = ""
        afterQuote = false
      case "\n", "\r\n", "\r":
        fields.append(field)
        if fields != [""] { records.append((recordLine, fields)) }
        fields = []
        field = ""
        afterQuote = false
        line += 1
        recordLine = line
      case "\"" where field.isEmpty && !afterQuote:
        inQuotes = true
      default:
        guard !afterQuote else {
          throw CSVProblem(line: line, reason: "text after a closing quote")
        }
        field.append(character)
      }
    }
    guard !inQuotes else { throw CSVProblem(line: recordLine, reason: "an unclosed quote") }
    fields.append(field)
    if fields != [""] { records.append((recordLine, fields)) }
    return records
  }
}

/// Why a CSV text could not be read.
struct CSVProblem: Error {
  let line: Int
  let reason: String
}

extension String {
  fileprivate func replacingQuotes() -> String {
    var out = ""
    for character in self {
      if character == "\"" { out.append("\"") }
      out.append(character)
    }
    return out
  }
}
