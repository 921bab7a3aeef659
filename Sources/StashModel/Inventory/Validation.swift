/// The limits the inventory models enforce, in one place.
///
/// They exist to refuse nonsense early with a clear message (an empty name, a quantity of a
/// trillion, a latitude of 200), not to police taste.
public enum Limits {
  /// The longest name, brand, unit or barcode, in characters.
  public static let shortText = 200
  /// The longest notes or reminder message, in characters.
  public static let longText = 10_000
  /// The largest quantity or low-stock threshold.
  public static let maximumQuantity: Int64 = 1_000_000
  /// The largest reminder radius, in metres.
  public static let maximumRadius = 100_000.0
  /// The earliest date a record may carry: 0001-01-01T00:00:00Z, in seconds since 1970.
  public static let earliestDate = -62_135_596_800.0
  /// The latest date a record may carry: 9999-12-31T23:59:59Z, in seconds since 1970.
  public static let latestDate = 253_402_300_799.0
}

/// Validation helpers shared by the inventory models.
///
/// Text rules, where DESIGN.md is silent: a name must show something, so a name made only of
/// invisible characters (spaces, zero-width spaces and joiners, U+FEFF, other format and
/// default-ignorable characters, the braille blank) is refused; and no name or other one-line
/// text may hold a bidirectional embedding, override or isolate (U+202A to U+202E, U+2066 to
/// U+2069), which reorder how the text around them is shown ("Trojan Source"). Letters of every
/// script, emoji (joiners included), combining marks and the plain direction marks
/// U+200E/U+200F/U+061C inside visible text are kept. Notes and messages (multi-line texts)
/// may hold bidi controls; the `stash` tool shows them escaped.
public enum Validate {
  /// A name: not empty after trimming spaces, no control characters, at most `Limits.shortText`,
  /// no bidi controls, and not only invisible characters.
  ///
  /// - Parameters:
  ///   - text: The name.
  ///   - what: What it names, such as `"item"` or `"device"`.
  /// - Throws: ``ModelError`` saying what is wrong, naming the field.
  public static func name(_ text: String, of what: String) throws(ModelError) {
    guard !text.allSatisfy(\.isWhitespace) else {
      let article = "aeiou".contains(what.first ?? "x") ? "An" : "A"
      throw ModelError("\(article) \(what) needs a name that is not empty")
    }
    try oneLine(text, field: "name", of: what, needsVisibleText: true)
  }

  /// A one-line text: no control characters or bidi controls, at most `Limits.shortText`
  /// characters, and, unless empty or only spaces, something visible.
  static func shortText(_ text: String, field: String, of what: String) throws(ModelError) {
    try oneLine(text, field: field, of: what, needsVisibleText: false)
  }

  private static func oneLine(
    _ text: String, field: String, of what: String, needsVisibleText: Bool
  ) throws(ModelError) {
    // Printable ASCII (most names) has no control, bidi or invisible character but the
    // space, and one character per byte: only a text of spaces needs the full checks.
    let utf8 = text.utf8
    if utf8.count <= Limits.shortText, allBytes(of: text, are: { $0 >= 0x20 && $0 < 0x7F }),
      !needsVisibleText || utf8.contains(where: { $0 != 0x20 })
    {
      return
    }
    guard text.count <= Limits.shortText else {
      throw ModelError(
        "The \(what) \(field) '\(text.prefix(40))...' is longer than \(Limits.shortText) characters"
      )
    }
    guard !text.unicodeScalars.contains(where: isControl) else {
      throw ModelError("The \(what) \(field) '\(text)' contains a control character")
    }
    if let control = text.unicodeScalars.first(where: isBidiControl) {
      throw ModelError(
        "The \(what) \(field) '\(text)' contains the bidirectional control character "
          + "\(codePoint(control)), which reorders the text shown around it; remove it")
    }
    let hidden = text.unicodeScalars.contains { isInvisible($0) && !$0.properties.isWhitespace }
    if (needsVisibleText || hidden) && text.unicodeScalars.allSatisfy(isInvisible) {
      let fix =
        needsVisibleText
        ? "type a name that can be read" : "type text that can be read, or leave it out"
      throw ModelError(
        "The \(what) \(field) '\(text)' shows nothing: it is only invisible characters; \(fix)")
    }
  }

  /// A free text: tabs and newlines allowed, at most `Limits.longText` characters.
  static func longText(_ text: String, field: String, of what: String) throws(ModelError) {
    // ASCII text (most notes) has at most one character per byte, and its only control
    // characters are the bytes below 0x20 and 0x7F: when those are tabs and line breaks, the
    // checks below pass without counting characters (issue 26, item 5).
    if text.utf8.count <= Limits.longText,
      allBytes(
        of: text, are: { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D })
    {
      return
    }
    guard text.count <= Limits.longText else {
      throw ModelError("The \(what) \(field) is longer than \(Limits.longText) characters")
    }
    let allowed: Set<Unicode.Scalar> = ["\n", "\t", "\r"]
    guard !text.unicodeScalars.contains(where: { isControl($0) && !allowed.contains($0) }) else {
      throw ModelError("The \(what) \(field) contains a control character")
    }
  }

  /// Whether every UTF-8 byte of `text` passes `test`, reading a native string's bytes in
  /// place (the checks run on every record a sync imports or exports).
  private static func allBytes(of text: String, are test: (UInt8) -> Bool) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) }
      ?? text.utf8.allSatisfy(test)
  }

  /// A count: 0 through `Limits.maximumQuantity`.
  static func quantity(_ number: Int64, field: String, of what: String) throws(ModelError) {
    guard number >= 0 else {
      throw ModelError("The \(what) \(field) cannot be negative ('\(number)')")
    }
    guard number <= Limits.maximumQuantity else {
      throw ModelError(
        "The \(what) \(field) '\(number)' is more than \(Limits.maximumQuantity); check the number")
    }
  }

  /// The most devices one counter may hold tallies of.
  static let maximumCounterDevices = 1_000

  /// A counter: its base and its value 0 through `Limits.maximumQuantity`, each tally 1
  /// through 2^53, at most ``maximumCounterDevices`` devices.
  static func counter(_ counter: Counter, field: String, of what: String) throws(ModelError) {
    try quantity(counter.base, field: "\(field) counted", of: what)
    guard counter.increments.count + counter.decrements.count <= 2 * maximumCounterDevices,
      (Array(counter.increments.values) + Array(counter.decrements.values)).allSatisfy({
        $0 <= 1 << 53
      })
    else {
      throw ModelError("The \(what) \(field) holds tallies out of range; check the number")
    }
    guard let value = counter.value else {
      throw ModelError("The \(what) \(field) overflows; check the number")
    }
    try quantity(value, field: field, of: what)
  }

  /// A finite number within a closed range.
  static func number(
    _ value: Double, in range: ClosedRange<Double>, field: String, of what: String
  ) throws(ModelError) {
    guard value.isFinite, range.contains(value) else {
      throw ModelError(
        "The \(what) \(field) '\(value)' is outside \(range.lowerBound)...\(range.upperBound)")
    }
  }

  /// A date between ``Limits/earliestDate`` and ``Limits/latestDate``.
  static func date(_ time: Timestamp, field: String, of what: String) throws(ModelError) {
    guard (Limits.earliestDate...Limits.latestDate).contains(time.secondsSince1970) else {
      throw ModelError(
        "The \(what) \(field) '\(time.secondsSince1970)' is not a date between the years 1 and "
          + "9999")
    }
  }

  /// The creation and change times of a record.
  static func dates(created: Timestamp, updated: Timestamp, of what: String) throws(ModelError) {
    try date(created, field: "creation time", of: what)
    try date(updated, field: "change time", of: what)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// The embeddings, overrides and isolates, and their terminators.
  private static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
    (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
  }

  /// Whitespace, format characters (zero-width spaces and joiners, U+FEFF, direction marks),
  /// default-ignorable code points (Hangul fillers, variation selectors) and the braille blank.
  private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    let properties = scalar.properties
    return properties.isWhitespace || properties.generalCategory == .format
      || properties.isDefaultIgnorableCodePoint || scalar.value == 0x2800
  }

  /// `U+202E`.
  private static func codePoint(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}

extension String {
  /// Decodes UTF-8 bytes, refusing invalid sequences instead of repairing them.
  ///
  /// - Parameters:
  ///   - bytes: The candidate bytes.
  ///   - what: Names the text in the error, e.g. `"item name"`.
  /// - Throws: ``ModelError`` when the bytes are not valid UTF-8.
  public init(validatingUTF8Bytes bytes: some Collection<UInt8>, what: String) throws(ModelError) {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ModelError("The \(what) is not valid UTF-8 text")
    }
    self = text
  }
}
