import Foundation
import JSONLines

/// Appends little-endian integers and length-prefixed bytes.
struct ByteWriter {
  var output: [UInt8] = []

  mutating func integer<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
  }

  mutating func bytes(_ bytes: [UInt8], width: Int) {
    if width == 1 {
      integer(UInt8(min(bytes.count, 255)))
    } else {
      integer(UInt16(min(bytes.count, 65535)))
    }
    output += bytes.prefix(width == 1 ? 255 : 65535)
  }

  mutating func span(_ span: LineSpan) {
    integer(span.offset)
    integer(UInt32(span.length))
    integer(Int64(span.line))
  }
}

/// Reads what ``ByteWriter`` writes from raw memory, without copying, never past its end.
struct RawReader {
  private let raw: UnsafeRawBufferPointer
  private(set) var position = 0

  init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

  var isAtEnd: Bool { position == raw.count }

  mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, raw.count - position >= count else { return nil }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: raw[position..<(position + count)])
  }

  mutating func integer<T: FixedWidthInteger>() -> T? {
    let size = MemoryLayout<T>.size
    guard raw.count - position >= size else { return nil }
    defer { position += size }
    return T(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: T.self))
  }

  mutating func bytes(width: Int) -> UnsafeRawBufferPointer? {
    let length: Int?
    if width == 1 {
      length = (integer() as UInt8?).map(Int.init)
    } else {
      length = (integer() as UInt16?).map(Int.init)
    }
    return length.flatMap { take($0) }
  }

  mutating func span() -> LineSpan? {
    guard let offset: Int64 = integer(), let length: UInt32 = integer(),
      let line: Int64 = integer(), offset >= 0, line >= 0, line <= Int64(Int32.max)
    else { return nil }
    return LineSpan(offset: offset, length: Int(length), line: Int(line))
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these bytes are exactly `bytes` (a `memcmp`, not a walk through two sequences:
  /// a lookup compares every entry of the index).
  func hasBytes(_ bytes: [UInt8]) -> Bool {
    count == bytes.count && hasPrefix(bytes)
  }

  /// Whether these bytes start with `bytes`.
  func hasPrefix(_ bytes: [UInt8]) -> Bool {
    guard count >= bytes.count else { return false }
    guard let base = baseAddress, !bytes.isEmpty else { return true }
    return bytes.withUnsafeBytes { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
  }
}
