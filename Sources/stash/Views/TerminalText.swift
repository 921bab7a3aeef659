import StashBase

/// Text made safe to print where a person reads it: nothing typed or stored can move the
/// cursor, retitle the window, ring the bell, rewrite the line or reorder it.
///
/// Messages echo what people typed (`No item named '…'`) and listings show what was stored, so
/// every line `stash` prints passes through here, in one place: ``Failure`` for standard error
/// and ``Output`` for standard output. What is neutralized: C0 controls (line feed and tab are
/// kept in multi-line output), DEL, C1 controls (U+0080 to U+009F, among them the one-byte
/// CSI), the line and paragraph separators U+2028 and U+2029, and the bidirectional
/// embeddings, overrides and isolates U+202A to U+202E and U+2066 to U+2069 (the "Trojan
/// Source" characters): ``UnsafeScalars``, the one definition of them. Each is written as
/// `\u{1B}`, so the culprit stays visible. Other text, emoji, combining marks and
/// right-to-left scripts included, is printed as it is.
enum TerminalText {
  /// The colour sequences ``Output`` writes itself, kept when it colours.
  static let colourSequences: [[Unicode.Scalar]] = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[31m", "\u{1B}[33m",
  ]
  .map { Array($0.unicodeScalars) }

  /// `text` with every unsafe scalar written as `\u{…}`.
  ///
  /// - Parameters:
  ///   - text: What to print.
  ///   - keepingLayout: Keep line feeds and tabs, and print a carriage return before a line
  ///     feed as a plain line end, for multi-line output; a one-line message neutralizes them.
  ///   - keepingColour: Keep the exact colour sequences in ``colourSequences``.
  static func neutralized(
    _ text: String, keepingLayout: Bool = false, keepingColour: Bool = false
  ) -> String {
    guard UnsafeScalars.areIn(text) else { return text }
    let scalars = Array(text.unicodeScalars)
    var result = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if keepingColour, scalar == "\u{1B}",
        let sequence = colourSequences.first(where: { scalars[index...].starts(with: $0) })
      {
        result.append(contentsOf: sequence)
        index += sequence.count
        continue
      }
      let next = index + 1 < scalars.count ? scalars[index + 1] : nil
      if keepingLayout && scalar == "\r" && next == "\n" {
        index += 1
        continue
      }
      let layout = scalar == "\n" || scalar == "\t"
      if UnsafeScalars.contains(scalar) && !(keepingLayout && layout) {
        result.append(contentsOf: escaped(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
      index += 1
    }
    return String(result)
  }

  /// JSON text with every unsafe scalar inside its strings written as a `\uXXXX` escape, which
  /// reads back as the same value. (Outside strings JSON is plain ASCII, so every such scalar
  /// is inside one; our writer already escapes C0 controls.)
  static func neutralizedJSON(_ json: String) -> String {
    guard UnsafeScalars.areIn(json) else { return json }
    var result = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
      if UnsafeScalars.contains(scalar) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result.append(
          contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  private static func escaped(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
  }
}
