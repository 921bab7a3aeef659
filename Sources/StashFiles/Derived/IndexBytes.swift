import Foundation

/// Appends little-endian integers and length-prefixed bytes.
public struct ByteWriter {
  /// The bytes written so far.
  public var output: [UInt8] = []

  /// An empty writer.
  public init() {}

  /// Appends a little-endian integer.
  ///
  /// Inlinable, so that each caller's integer type is known where it is written: through the
  /// generic path, each integer of an index took about 135 instructions (a raw buffer's
  /// append with its type looked up at run time), 1.8% of a first sync (issue 26, item 5).
  @inlinable
  public mutating func integer<T: FixedWidthInteger>(_ value: T) {
    for index in 0..<(T.bitWidth / 8) {
      output.append(UInt8(truncatingIfNeeded: value >> (index * 8)))
    }
  }

  /// Appends bytes after their length (one byte wide, or two): longer ones are cut.
  public mutating func bytes(_ bytes: [UInt8], width: Int) {
    if width == 1 {
      integer(UInt8(min(bytes.count, 255)))
    } else {
      integer(UInt16(min(bytes.count, 65535)))
    }
    output += bytes.prefix(width == 1 ? 255 : 65535)
  }
}

/// Reads what ``ByteWriter`` writes from raw memory, without copying, never past its end.
public struct RawReader {
  private let raw: UnsafeRawBufferPointer
  /// How far it has read.
  public private(set) var position = 0

  /// A reader of `raw`, from its start.
  public init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

  /// Whether every byte was read.
  public var isAtEnd: Bool { position == raw.count }

  /// The next `count` bytes; `nil` past the end.
  public mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, raw.count - position >= count else { return nil }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: raw[position..<(position + count)])
  }

  /// The next little-endian integer; `nil` past the end.
  ///
  /// Inlinable, so that a reader in another module reads each width without looking up the
  /// type's metadata at run time: `sync status` at 1,000,000 items spent a quarter of its
  /// time there, reading the heads of the derived files (issue 26).
  @inlinable
  public mutating func integer<T: FixedWidthInteger>() -> T? {
    guard let bytes = take(MemoryLayout<T>.size) else { return nil }
    return T(littleEndian: bytes.loadUnaligned(as: T.self))
  }

  /// The next length-prefixed bytes (as ``ByteWriter/bytes(_:width:)`` writes them).
  public mutating func bytes(width: Int) -> UnsafeRawBufferPointer? {
    let length: Int?
    if width == 1 {
      length = (integer() as UInt8?).map(Int.init)
    } else {
      length = (integer() as UInt16?).map(Int.init)
    }
    return length.flatMap { take($0) }
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these bytes are exactly `bytes` (a `memcmp`, not a walk through two sequences:
  /// a lookup compares every entry of the index).
  public func hasBytes(_ bytes: [UInt8]) -> Bool {
    count == bytes.count && hasPrefix(bytes)
  }

  /// Whether these bytes start with `bytes`.
  public func hasPrefix(_ bytes: [UInt8]) -> Bool {
    guard count >= bytes.count else { return false }
    guard let base = baseAddress, !bytes.isEmpty else { return true }
    return bytes.withUnsafeBytes { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
  }
}
