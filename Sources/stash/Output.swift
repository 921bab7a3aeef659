import Foundation
import StashBase
import StashModel

/// Standard output: plain lines, JSON values, and a little colour for people at a terminal.
struct Output {
  /// Whether to colour: only when standard output is a terminal and `NO_COLOR` is unset.
  let usesColor: Bool

  init(environment: [String: String]) {
    let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    usesColor = !noColor && environment["TERM"] != "dumb" && isatty(STDOUT_FILENO) == 1
  }

  /// Prints one line (or several, joined by newlines), with control characters neutralized
  /// (``TerminalText``): only this tool's own colour sequences reach the terminal.
  func line(_ text: String = "") {
    print(TerminalText.neutralized(text, keepingLayout: true, keepingColour: usesColor))
  }

  /// Prints text as it is, with no newline added: a piece of output already neutralized
  /// (such as one element of a JSON array printed as it streams).
  func write(_ text: String) {
    print(text, terminator: "")
  }

  /// Prints lines, as ``line(_:)`` does.
  func lines(_ texts: [String]) {
    for text in texts { line(text) }
  }

  /// Prints a value as compact JSON on one line (our writer: deterministic, bit-exact), with
  /// the characters ``TerminalText`` neutralizes written as `\uXXXX` escapes: the same value.
  func json(_ value: JSONValue) {
    print(TerminalText.neutralizedJSON(JSONWriter.string(value)))
  }

  /// Prints an object as compact JSON on one line.
  func json(_ object: JSONObject) {
    json(.object(object))
  }

  /// Text marked as a warning (yellow) when colouring.
  func warning(_ text: String) -> String {
    usesColor ? "\u{1B}[33m\(text)\u{1B}[0m" : text
  }

  /// Text marked as a problem (red) when colouring.
  func problem(_ text: String) -> String {
    usesColor ? "\u{1B}[31m\(text)\u{1B}[0m" : text
  }

  /// Text marked as a heading (bold) when colouring.
  func heading(_ text: String) -> String {
    usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text
  }
}
