import StashBase

/// The text form of a folder key that a person copies, keeps and types on another device.
///
/// 60 characters in 12 groups of 5, such as `7ZK3Q-…-M4D0P`: the first 52 are the key's 256
/// bits, most significant first, 5 bits a character in Crockford's base 32 alphabet
/// (`0-9 A-Z` without `I L O U`, so no two characters look alike) with 4 zero bits after the
/// last bit; the last 8 are a check: the first 40 bits of SHA-256 of the ASCII label
/// `stash sync key v1` followed by the 32 key bytes. A typo passes the check with
/// probability 2^-40. Reading ignores case, spaces, line breaks and dashes, and reads `O` as
/// `0` and `I` and `L` as `1`. Fixtures/README.md, section 6, specifies it byte by byte.
public enum SyncKeyText {
  /// The 32 characters, in the order of their values.
  static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

  /// The number of characters in a sync key, without separators.
  public static let characterCount = 60

  /// Characters per group when printed.
  public static let groupLength = 5

  /// The label hashed before the key for the check characters.
  static let checkLabel = "stash sync key v1"

  /// The key as sync key text, in groups of 5 joined by dashes.
  ///
  /// - Parameter key: The folder key.
  /// - Returns: 71 characters: 60 of the key and check, 11 dashes.
  public static func encode(_ key: FolderKey) -> String {
    let values = key.withUnsafeBytes { symbols(of: Array($0)) }
    var text = ""
    for (index, value) in values.enumerated() {
      if index > 0 && index % groupLength == 0 { text.append("-") }
      text.append(Character(Unicode.Scalar(alphabet[Int(value)])))
    }
    return text
  }

  /// Reads sync key text back into the key.
  ///
  /// - Parameter text: What the person typed or pasted.
  /// - Returns: The key.
  /// - Throws: `SyncKeyError`, which says what is wrong and where, never what was typed.
  public static func parse(_ text: String) throws(SyncKeyError) -> FolderKey {
    var values: [UInt8] = []
    for character in text {
      if character.isWhitespace || "-\u{2010}\u{2011}\u{2012}\u{2013}\u{2014}".contains(character) {
        continue
      }
      guard let value = value(of: character) else {
        throw .invalidCharacter(position: values.count + 1)
      }
      values.append(value)
    }
    guard !values.isEmpty else { throw .empty }
    guard values.count == characterCount else { throw .wrongLength(found: values.count) }
    var bytes: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits = 0
    for value in values[..<52] {
      accumulator = accumulator << 5 | UInt32(value)
      bits += 5
      if bits >= 8 {
        bits -= 8
        bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    // 260 bits were read: the 4 left over must be zero, and the check must match.
    guard accumulator & 0xF == 0, symbols(of: bytes) == values else { throw .checksumMismatch }
    return FolderKey(try! SymmetricKey(bytes: bytes))
  }

  /// The 60 five-bit values of a key's text: 52 for the key, 8 for the check.
  static func symbols(of key: [UInt8]) -> [UInt8] {
    var check = SHA256()
    check.update(checkLabel)
    check.update(key)
    return fiveBitGroups(key, count: 52)
      + fiveBitGroups(Array(check.finalize().bytes[..<5]), count: 8)
  }

  /// The first `count` 5-bit groups of `bytes`, most significant bit first, zero-padded.
  private static func fiveBitGroups(_ bytes: [UInt8], count: Int) -> [UInt8] {
    var out: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in bytes {
      accumulator = accumulator << 8 | UInt32(byte)
      bits += 8
      while bits >= 5 && out.count < count {
        bits -= 5
        out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)) & 0x1F)
      }
    }
    if out.count < count {
      out.append(UInt8(truncatingIfNeeded: accumulator << UInt32(5 - bits)) & 0x1F)
    }
    return out
  }

  /// The value of one character: the alphabet in either case, `O` as 0, `I` and `L` as 1.
  private static func value(of character: Character) -> UInt8? {
    guard let ascii = character.asciiValue else { return nil }
    let upper = ascii >= UInt8(ascii: "a") && ascii <= UInt8(ascii: "z") ? ascii - 32 : ascii
    switch upper {
    case UInt8(ascii: "O"): return 0
    case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
    default: return alphabet.firstIndex(of: upper).map { UInt8($0) }
    }
  }
}

/// Why sync key text was refused. The messages never repeat the text, not even in part.
public enum SyncKeyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Nothing but spaces and dashes.
  case empty
  /// The text has `found` key characters where a sync key has 60.
  case wrongLength(found: Int)
  /// The key character at `position` (counting from 1, separators not counted) is not one a
  /// sync key uses.
  case invalidCharacter(position: Int)
  /// The check characters do not match the rest: a typo or two swapped characters.
  case checksumMismatch

  /// What is wrong and what to do, without any of the key.
  public var description: String {
    switch self {
    case .empty:
      return "The sync key is empty; enter the 60 characters shown when the folder was encrypted"
    case .wrongLength(let found):
      return "The sync key has \(found) characters where it should have 60 (12 groups of 5); "
        + "look for a missing or repeated group"
    case .invalidCharacter(let position):
      let group = (position - 1) / SyncKeyText.groupLength + 1
      return "Character \(position) of the sync key (group \(group)) cannot be in a sync key, "
        + "which has only digits and the letters A-Z without U; check that character"
    case .checksumMismatch:
      return "The sync key's check characters do not match the rest: a character is mistyped "
        + "or two are swapped; compare it group by group with the copy you kept"
    }
  }
}
