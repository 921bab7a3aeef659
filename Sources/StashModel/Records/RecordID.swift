/// The app-assigned identity of a record: a UUID, written as lowercase text.
///
/// Creating a record assigns a new id, saving it does not, and duplicating a record on
/// purpose assigns another. Stores do not declare ids unique: two rows with one id are a
/// diagnostic, never a crash.
///
/// It is kept as its 16 bytes (two big-endian words), not as text: stores index hundreds of
/// thousands of ids, and two words hash, compare and store far more cheaply than a 36-character
/// string. The order is the order of the text.
public struct RecordID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The first eight bytes, big-endian.
  private let high: UInt64
  /// The last eight bytes, big-endian.
  private let low: UInt64

  /// Accepts only the canonical lowercase form.
  ///
  /// - Parameter text: A candidate such as `"3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f"`.
  /// - Returns: `nil` when `text` is not a lowercase UUID.
  public init?(_ text: String) {
    guard let (high, low) = RecordID.parse(text) else { return nil }
    self.high = high
    self.low = low
  }

  /// Accepts a UUID in either case and stores its lowercase form.
  ///
  /// - Parameter text: A UUID such as Foundation's `uuidString` (uppercase).
  /// - Returns: `nil` when `text` is not a UUID.
  public init?(normalizing text: String) {
    self.init(text.lowercased())
  }

  /// A new random (version 4) id.
  ///
  /// - Parameter generator: The source of randomness; tests pass a seeded one.
  /// - Returns: A fresh id.
  public static func random(using generator: inout some RandomNumberGenerator) -> RecordID {
    let high = (generator.next() as UInt64) & ~0xF000 | 0x4000  // version 4
    let low = (generator.next() as UInt64) & ~(0xC << 60) | (0x8 << 60)  // RFC 4122 variant
    return RecordID(high: high, low: low)
  }

  /// A new random (version 4) id from the system's generator.
  public static func make() -> RecordID {
    var generator = SystemRandomNumberGenerator()
    return random(using: &generator)
  }

  private init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// The canonical text: 36 characters, lowercase hexadecimal in the 8-4-4-4-12 form.
  public var rawValue: String {
    String(unsafeUninitializedCapacity: 36) { text in
      let digits: StaticString = "0123456789abcdef"
      var position = 0
      for nibble in 0..<32 {
        if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
          text[position] = UInt8(ascii: "-")
          position += 1
        }
        let word = nibble < 16 ? high : low
        let digit = Int((word >> UInt64(60 - 4 * (nibble & 15))) & 0xF)
        text[position] = digits.utf8Start[digit]
        position += 1
      }
      return 36
    }
  }

  public var description: String { rawValue }

  public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// Whether `text` is a lowercase UUID (also used for store and device ids).
  static func isCanonical(_ text: String) -> Bool { parse(text) != nil }

  /// The two words of a lowercase UUID, or `nil`.
  private static func parse(_ text: String) -> (UInt64, UInt64)? {
    guard text.utf8.count == 36 else { return nil }
    var text = text
    return text.withUTF8 { utf8 -> (UInt64, UInt64)? in
      var words: (UInt64, UInt64) = (0, 0)
      var nibbles = 0
      for index in 0..<36 {
        let byte = utf8[index]
        if index == 8 || index == 13 || index == 18 || index == 23 {
          guard byte == UInt8(ascii: "-") else { return nil }
          continue
        }
        let value: UInt8
        if byte &- UInt8(ascii: "0") < 10 {
          value = byte &- UInt8(ascii: "0")
        } else if byte &- UInt8(ascii: "a") < 6 {
          value = byte &- UInt8(ascii: "a") &+ 10
        } else {
          return nil
        }
        if nibbles < 16 {
          words.0 = words.0 << 4 | UInt64(value)
        } else {
          words.1 = words.1 << 4 | UInt64(value)
        }
        nibbles += 1
      }
      return words
    }
  }
}
