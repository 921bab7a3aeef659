/// CRC-32 exactly as zlib, PNG, gzip and Python's `zlib.crc32` compute it.
///
/// The reflected polynomial 0xEDB88320, with the register starting at 0xFFFFFFFF and the
/// result inverted. A message may be checksummed in pieces by passing each piece's result
/// as `previous` for the next, just like `zlib.crc32(data, value)`:
///
/// ```swift
/// let whole = CRC32.checksum(Array("123456789".utf8))  // 0xCBF43926
/// let first = CRC32.checksum(Array("1234".utf8))
/// let both = CRC32.checksum(Array("56789".utf8), continuing: first)  // == whole
/// ```
///
/// The bytes are processed 16 at a time with the slicing-by-16 method: sixteen 256-entry
/// tables, computed once on first use.
public enum CRC32 {
  /// Sixteen 256-entry tables, flattened: entry `n` of table `k` is at `k * 256 + n`.
  ///
  /// Table 0 is the classic byte-at-a-time table; table `k` advances table `k - 1` by one
  /// more zero byte, so one 16-byte step can look up each input byte independently.
  private static let tables: [UInt32] = makeTables()

  /// The CRC-32 of the bytes of a raw buffer, optionally continuing an earlier checksum.
  ///
  /// `checksum(b, continuing: checksum(a))` equals the checksum of `a` followed by `b`.
  ///
  /// - Parameters:
  ///   - bytes: The bytes to checksum; may be empty.
  ///   - previous: The checksum of the bytes before these, or 0 to start a new message.
  /// - Returns: The checksum of the whole message so far.
  public static func checksum(
    _ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0
  ) -> UInt32 {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return previous }
    return tables.withUnsafeBufferPointer { tables in
      ~update(~previous, base, count: bytes.count, tables: tables.baseAddress!)
    }
  }

  /// The CRC-32 of the bytes of an array, optionally continuing an earlier checksum.
  ///
  /// `checksum(b, continuing: checksum(a))` equals the checksum of `a + b`.
  ///
  /// - Parameters:
  ///   - bytes: The bytes to checksum; may be empty.
  ///   - previous: The checksum of the bytes before these, or 0 to start a new message.
  /// - Returns: The checksum of the whole message so far.
  public static func checksum(_ bytes: [UInt8], continuing previous: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0, continuing: previous) }
  }

  /// Advances the (non-inverted) CRC register over `count` bytes at `input`.
  private static func update(
    _ start: UInt32, _ input: UnsafeRawPointer, count: Int, tables t: UnsafePointer<UInt32>
  ) -> UInt32 {
    var crc = start
    var p = input
    var remaining = count
    while remaining >= 16 {
      // Only the four lookups that depend on `crc` are on the loop-carried path, so they
      // are written last: the optimizer turns these XORs into one chain in source order,
      // and with the other twelve first they overlap the previous iteration (measured:
      // about 1.8 times faster than with the `crc` lookups first).
      let two = p.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
      let three = p.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian
      let four = p.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian
      let fromFour =
        (lookup(t, 3, four) ^ lookup(t, 2, four &>> 8))
        ^ (lookup(t, 1, four &>> 16) ^ lookup(t, 0, four &>> 24))
      let fromThree =
        (lookup(t, 7, three) ^ lookup(t, 6, three &>> 8))
        ^ (lookup(t, 5, three &>> 16) ^ lookup(t, 4, three &>> 24))
      let fromTwo =
        (lookup(t, 11, two) ^ lookup(t, 10, two &>> 8))
        ^ (lookup(t, 9, two &>> 16) ^ lookup(t, 8, two &>> 24))
      let one = p.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian ^ crc
      let fromOne =
        (lookup(t, 15, one) ^ lookup(t, 14, one &>> 8))
        ^ (lookup(t, 13, one &>> 16) ^ lookup(t, 12, one &>> 24))
      crc = ((fromFour ^ fromThree) ^ fromTwo) ^ fromOne
      p += 16
      remaining &-= 16
    }
    while remaining > 0 {
      crc = lookup(t, 0, crc ^ UInt32(p.load(as: UInt8.self))) ^ (crc &>> 8)
      p += 1
      remaining &-= 1
    }
    return crc
  }

  /// Entry `value & 0xff` of table `table`.
  @inline(__always)
  private static func lookup(_ t: UnsafePointer<UInt32>, _ table: Int, _ value: UInt32) -> UInt32 {
    t[table &* 256 &+ Int(value & 0xFF)]
  }

  /// Computes the sixteen slicing tables for the reflected polynomial 0xEDB88320.
  private static func makeTables() -> [UInt32] {
    var tables = [UInt32](repeating: 0, count: 16 * 256)
    for n in 0..<256 {
      var crc = UInt32(n)
      for _ in 0..<8 {
        crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
      }
      tables[n] = crc
    }
    for table in 1..<16 {
      for n in 0..<256 {
        let previous = tables[(table - 1) * 256 + n]
        tables[table * 256 + n] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
      }
    }
    return tables
  }
}
