/// The app-assigned identity of a record: a UUID in lowercase text.
///
/// Creating a record assigns a new id, saving it does not, and duplicating a record on
/// purpose assigns another. Stores do not declare ids unique: two rows with one id are a
/// diagnostic, never a crash.
public struct RecordID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The canonical text: 36 characters, lowercase hexadecimal in the 8-4-4-4-12 form.
  public let rawValue: String

  /// Accepts only the canonical lowercase form.
  ///
  /// - Parameter text: A candidate such as `"3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f"`.
  /// - Returns: `nil` when `text` is not a lowercase UUID.
  public init?(_ text: String) {
    guard RecordID.isCanonical(text) else { return nil }
    self.rawValue = text
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
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return RecordID(unchecked: String(decoding: text, as: UTF8.self))
  }

  /// A new random (version 4) id from the system's generator.
  public static func make() -> RecordID {
    var generator = SystemRandomNumberGenerator()
    return random(using: &generator)
  }

  public var description: String { rawValue }

  public static func < (lhs: RecordID, rhs: RecordID) -> Bool { lhs.rawValue < rhs.rawValue }

  init(unchecked text: String) { self.rawValue = text }

  static func isCanonical(_ text: String) -> Bool {
    let utf8 = text.utf8
    guard utf8.count == 36 else { return false }
    for (index, byte) in utf8.enumerated() {
      switch index {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return false }
      default:
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        let isLowerHex = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")
        guard isDigit || isLowerHex else { return false }
      }
    }
    return true
  }
}
