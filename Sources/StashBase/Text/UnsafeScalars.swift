/// The scalars a terminal would act on, or that reorder the text around them: what the
/// `stash` tool writes escaped wherever a person reads its output (its `TerminalText`).
///
/// C0 controls, DEL, C1 controls (U+0080 to U+009F, among them the one-byte CSI), the line
/// and paragraph separators U+2028 and U+2029, and the bidirectional embeddings, overrides
/// and isolates U+202A to U+202E and U+2066 to U+2069 (the "Trojan Source" characters).
public enum UnsafeScalars {
  /// Whether `scalar` is one of them.
  public static func contains(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  /// Whether `text` holds one of them, read from its UTF-8 bytes without decoding a scalar:
  /// a byte below 0x20 or 0x7F, or the encodings of U+0080 to U+009F (0xC2 0x80-0x9F), of
  /// U+2028 to U+202E (0xE2 0x80 0xA8-0xAE) and of U+2066 to U+2069 (0xE2 0x81 0xA6-0xA9).
  /// `list --json` checked every scalar of every line it printed, 7% of its time at 100,000
  /// items (issue 26, item 5).
  public static func areIn(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte < 0x20 || byte == 0x7F { return true }
        if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
          return true
        }
        if byte == 0xE2, index + 2 < bytes.count {
          let (second, third) = (bytes[index + 1], bytes[index + 2])
          if second == 0x80 && (0xA8...0xAE).contains(third) { return true }
          if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
        }
        index += 1
      }
      return false
    }
  }
}
