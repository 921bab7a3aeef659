/// Lowercase hexadecimal digits, eight at a time: a word's nibbles spread one to a byte and
/// turned into their digits with a few integer operations (no table, no loop per digit).
///
/// Digests and ids are written as hex in every line a sync writes (a version names its id,
/// its hash and its parents; a record names its id), so this is on every sync's hot path.
package enum HexDigits {
  /// The eight lowercase hex digits of `value`, the first in the lowest byte (the order they
  /// take in memory, stored little-endian).
  @inlinable @inline(__always)
  package static func of(_ value: UInt32) -> UInt64 {
    // Spread the nibbles one to a byte, the most significant in the highest byte.
    var nibbles = UInt64(value)
    nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
    nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
    nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
    nibbles = nibbles.byteSwapped
    // 1 in each byte above 9, which then takes `a`-`f` (39 past the `0`-`9` run).
    let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
    return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
  }

  /// Writes the `2 × raw.count` digits of `raw` at `out`, two per byte, in order.
  ///
  /// - Parameters:
  ///   - raw: The bytes.
  ///   - out: Where the digits go; it must have room for `2 × raw.count` bytes.
  package static func write(_ raw: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer) {
    let count = raw.count
    var index = 0
    while index &+ 4 <= count {
      let word = raw.loadUnaligned(fromByteOffset: index, as: UInt32.self).bigEndian
      out.storeBytes(of: of(word).littleEndian, toByteOffset: 2 &* index, as: UInt64.self)
      index &+= 4
    }
    while index < count {
      let digits = of(UInt32(raw[index]))  // "000000xy": the last two are this byte's
      out.storeBytes(
        of: UInt16(truncatingIfNeeded: digits >> 48).littleEndian, toByteOffset: 2 &* index,
        as: UInt16.self)
      index &+= 1
    }
  }
}
