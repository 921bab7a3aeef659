/// A plain-text table: a header row and aligned columns separated by two spaces.
///
/// Lines carry no trailing spaces, so the output is easy to `grep`, `cut` and diff.
struct TextTable {
  /// The column titles, printed uppercase as given.
  var headers: [String]
  /// Columns whose cells are aligned to the right (numbers).
  var rightAligned: Set<Int> = []
  /// The rows; each has one cell per header.
  var rows: [[String]] = []

  /// The table as lines, header first.
  func render() -> [String] {
    var widths = headers.map(\.count)
    for row in rows { Self.widen(&widths, for: row) }
    return ([headers] + rows).map { line($0, widths: widths) }
  }

  /// Widens `widths` to fit `row`'s cells.
  static func widen(_ widths: inout [Int], for row: [String]) {
    for (column, cell) in row.enumerated() where column < widths.count {
      widths[column] = max(widths[column], cell.count)
    }
  }

  /// One row as a line, its columns padded to `widths`.
  func line(_ row: [String], widths: [Int]) -> String {
    var line = ""
    for (column, cell) in row.enumerated() {
      let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
      if column > 0 { line += "  " }
      line += rightAligned.contains(column) ? padding + cell : cell + padding
    }
    // Trailing padding only (a cell never ends in a space it did not get as padding…
    // or it did, and the line still carries no trailing space): cut in place, not by
    // reversing the line character by character.
    while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
    return line
  }
}
