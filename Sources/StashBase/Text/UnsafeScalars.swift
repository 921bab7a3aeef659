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
  ///
  /// Runs of plain ASCII (no control, no DEL) are passed over eight bytes at a time: bytewise,
  /// the check was 6% of `list --json` at 100,000 items, about ten instructions a byte.
  public static func areIn(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        while index + 8 <= bytes.count,
          isPlain(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
        {
          index += 8
        }
        guard index < bytes.count else { break }
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

  /// Whether all eight bytes of `word` are ASCII from 0x20 to 0x7E. A word it refuses is
  /// looked at byte by byte (it may still be safe, as an accented letter is).
  @inline(__always)
  static func isPlain(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high = ones &* 0x80
    // With no high bit set, a byte below 0x20 borrows into its own high bit, and a byte
    // equal to 0x7F becomes zero and does: exact for the first such byte, and a borrow only
    // ever flags more (the caller then only looks closer).
    let below = (word &- ones &* 0x20) & ~word
    let delete = word ^ (ones &* 0x7F)
    let deletes = (delete &- ones) & ~delete
    return (word | below | deletes) & high == 0
  }
}
