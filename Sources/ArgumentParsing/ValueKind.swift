/// The kind of value an option or positional argument takes.
///
/// The kind decides how the parser checks and converts the text a user typed. Every value is
/// converted before a command sees it, so commands read typed values from ``ParsedArguments``
/// and never parse text themselves.
public enum ValueKind: Sendable, Hashable {
  /// No value: the option is either present or absent, like `--json`.
  ///
  /// Only options can be flags; giving a flag a value (`--json=yes`) is a usage error.
  case flag

  /// Any text, taken as written.
  ///
  /// The empty string is accepted (`--notes ""`), so a command can tell "clear this field"
  /// apart from "leave it alone".
  case string

  /// A whole number that fits in `Int64`.
  ///
  /// It is written in decimal digits with an optional leading `-`; a leading `+`, spaces,
  /// underscores and other bases are refused. Numbers beyond `Int64` are refused as too large.
  case integer

  /// A finite number written in plain decimal notation, such as `12`, `-0.5` or `52.3702`.
  ///
  /// It is an optional `-`, one or more digits, and optionally a `.` followed by one or more
  /// digits. Exponents (`1e3`), `nan`, `inf`, a leading `+` and a bare `.5` or `5.` are
  /// refused; so is a number too large to be finite.
  case decimal

  /// A file system path, kept exactly as written.
  ///
  /// The parser only refuses the empty string; whether the path exists is the command's
  /// business.
  case path

  /// One of a fixed list of words, matched exactly (case-sensitive).
  ///
  /// A word not in the list is refused, with the closest word suggested when one is close.
  ///
  /// - Parameter choices: The accepted words, in the order help shows them.
  case choice([String])
}

extension ValueKind {
  /// The placeholder help shows for a value of this kind when a spec names none.
  var defaultValueName: String? {
    switch self {
    case .flag: nil
    case .string: "TEXT"
    case .integer: "N"
    case .decimal: "D"
    case .path: "PATH"
    case .choice(let choices): choices.joined(separator: "|")
    }
  }

  /// What the value is, for messages: "a whole number".
  var noun: String {
    switch self {
    case .flag: "no value"
    case .string: "text"
    case .integer: "a whole number"
    case .decimal: "a decimal number"
    case .path: "a path"
    case .choice(let choices): "one of " + choices.map { "'\($0)'" }.joined(separator: ", ")
    }
  }

  /// A value to show in an example, or `nil` when the placeholder reads better.
  var sampleValue: String? {
    switch self {
    case .integer: "5"
    case .decimal: "1.5"
    case .choice(let choices): choices.first
    case .flag, .string, .path: nil
    }
  }

  /// Checks `text` and converts it to a typed value.
  ///
  /// - Parameter text: The text as the user typed it.
  /// - Returns: The converted value, or why the text was refused.
  func convert(_ text: String) -> Result<ParsedValue, ValueProblem> {
    switch self {
    case .flag:
      return .failure(.invalid)
    case .string:
      return .success(ParsedValue(text: text))
    case .path:
      return text.isEmpty ? .failure(.invalid) : .success(ParsedValue(text: text))
    case .choice(let choices):
      return choices.contains(text) ? .success(ParsedValue(text: text)) : .failure(.invalid)
    case .integer:
      return Self.convertInteger(text)
    case .decimal:
      return Self.convertDecimal(text)
    }
  }

  private static func convertInteger(_ text: String) -> Result<ParsedValue, ValueProblem> {
    let digits = text.hasPrefix("-") ? text.utf8.dropFirst() : text.utf8[...]
    guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return .failure(.invalid) }
    guard let number = Int64(text) else {
      return .failure(text.hasPrefix("-") ? .tooSmall : .tooLarge)
    }
    return .success(ParsedValue(text: text, integer: number))
  }

  private static func convertDecimal(_ text: String) -> Result<ParsedValue, ValueProblem> {
    var rest = text.hasPrefix("-") ? text.utf8.dropFirst() : text.utf8[...]
    let whole = rest.prefix(while: isDigit)
    guard !whole.isEmpty else { return .failure(.invalid) }
    rest = rest.dropFirst(whole.count)
    if let point = rest.first {
      guard point == UInt8(ascii: "."), rest.count > 1, rest.dropFirst().allSatisfy(isDigit) else {
        return .failure(.invalid)
      }
    }
    guard let number = Double(text) else { return .failure(.invalid) }
    guard number.isFinite else { return .failure(text.hasPrefix("-") ? .tooSmall : .tooLarge) }
    return .success(ParsedValue(text: text, decimal: number))
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}

/// Why a value's text was refused.
enum ValueProblem: Error, Equatable {
  /// The text is not a value of the kind at all.
  case invalid
  /// The text is a number above the largest the kind holds.
  case tooLarge
  /// The text is a number below the smallest the kind holds.
  case tooSmall
}

/// One converted value: the text as typed, plus its number when the kind is numeric.
struct ParsedValue: Sendable, Equatable {
  var text: String
  var integer: Int64?
  var decimal: Double?

  init(text: String, integer: Int64? = nil, decimal: Double? = nil) {
    self.text = text
    self.integer = integer
    self.decimal = decimal
  }
}
