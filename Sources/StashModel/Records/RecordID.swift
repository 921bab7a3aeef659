import StashBase

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
      writeText(to: text.baseAddress!)
      return 36
    }
  }

  /// The UTF-8 bytes of ``rawValue``, without building the string (index entries hold ids as
  /// bytes, one for every record an index is built for).
  public var utf8Bytes: [UInt8] {
    [UInt8](unsafeUninitializedCapacity: 36) { buffer, count in
      writeText(to: buffer.baseAddress!)
      count = 36
    }
  }

  /// How many bytes ``rawValue`` has: always 36 (ids are accepted in canonical form only).
  public static let textLength = 36

  /// Appends the 36 bytes of ``rawValue``, without building the string (a record's canonical
  /// encoding names its id, and a first sync hashes every record).
  ///
  /// - Parameter bytes: The buffer to append them to.
  public func appendText(to bytes: inout [UInt8]) {
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(0, count: Self.textLength))
    bytes.withUnsafeMutableBufferPointer { buffer in
      writeText(to: buffer.baseAddress! + start)
    }
  }

  /// Calls `body` with the 36 bytes of ``rawValue``, written on the stack: no string and no
  /// array (a digest finds the bucket of every record of both stores by hashing its id).
  ///
  /// - Parameter body: Reads the bytes; they are valid only during the call.
  /// - Returns: What `body` returns.
  @inlinable  // generic: run unspecialized, it asked the runtime for `Result`'s metadata
  public func withText<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textLength) {
      buffer throws(Failure) in
      writeText(to: buffer.baseAddress!)
      return try body(UnsafeRawBufferPointer(buffer))
    }
  }

  /// Appends ``rawValue`` as a JSON string (in quotes; it needs no escape), without building
  /// the string: a version's line names its record's id, and a first sync writes one for
  /// every record.
  ///
  /// - Parameter bytes: The buffer to append the 38 bytes to.
  public func appendJSONString(to bytes: inout [UInt8]) {
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "\""), count: 38))
    bytes.withUnsafeMutableBufferPointer { buffer in
      writeText(to: buffer.baseAddress! + start + 1)
    }
  }

  /// Writes the 36 bytes of ``rawValue`` at `text`: eight digits at a time
  /// (``HexDigits``), with the dashes between.
  @usableFromInline
  func writeText(to text: UnsafeMutablePointer<UInt8>) {
    let raw = UnsafeMutableRawPointer(text)
    let first = HexDigits.of(UInt32(truncatingIfNeeded: high >> 32))
    let second = HexDigits.of(UInt32(truncatingIfNeeded: high))
    let third = HexDigits.of(UInt32(truncatingIfNeeded: low >> 32))
    let fourth = HexDigits.of(UInt32(truncatingIfNeeded: low))
    raw.storeBytes(of: first.littleEndian, toByteOffset: 0, as: UInt64.self)
    raw.storeBytes(
      of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: 9, as: UInt32.self)
    raw.storeBytes(
      of: UInt32(truncatingIfNeeded: second >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
    raw.storeBytes(
      of: UInt32(truncatingIfNeeded: third).littleEndian, toByteOffset: 19, as: UInt32.self)
    raw.storeBytes(
      of: UInt32(truncatingIfNeeded: third >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
    raw.storeBytes(of: fourth.littleEndian, toByteOffset: 28, as: UInt64.self)
    text[8] = UInt8(ascii: "-")
    text[13] = UInt8(ascii: "-")
    text[18] = UInt8(ascii: "-")
    text[23] = UInt8(ascii: "-")
  }

  public var description: String { rawValue }

  public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// Whether `text` is a lowercase UUID (also used for store and device ids).
  static func isCanonical(_ text: String) -> Bool { parse(text) != nil }

  /// Accepts only the canonical lowercase form, given as its UTF-8 bytes (a store line's, read
  /// without making a string first).
  ///
  /// - Parameter utf8: The 36 bytes of a candidate.
  /// - Returns: `nil` when the bytes are not a lowercase UUID.
  package init?(utf8: UnsafeRawBufferPointer) {
    guard utf8.count == 36,
      let (high, low) = RecordID.parse(utf8.assumingMemoryBound(to: UInt8.self))
    else { return nil }
    self.high = high
    self.low = low
  }

  /// The two words of a lowercase UUID, or `nil`.
  private static func parse(_ text: String) -> (UInt64, UInt64)? {
    guard text.utf8.count == 36 else { return nil }
    var text = text
    return text.withUTF8 { parse($0) }
  }

  private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
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
