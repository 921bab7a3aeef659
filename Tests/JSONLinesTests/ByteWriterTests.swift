import StashFiles
import StashTestSupport
import Testing

/// `ByteWriter.integer` writes each integer's little-endian bytes, as the derived files'
/// formats say (Fixtures/README.md, section 8), and `RawReader` reads them back.
@Suite struct ByteWriterTests {
  /// The reference: the integer's little-endian memory, as the writer wrote it before.
  static func reference<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
  }

  static func check<T: FixedWidthInteger>(_ value: T) {
    var writer = ByteWriter()
    writer.integer(value)
    #expect(writer.output == reference(value), "\(T.self) \(value)")
    writer.output.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      #expect(reader.integer() as T? == value)
      #expect(reader.isAtEnd)
    }
  }

  @Test func everyWidthAndSignWritesItsLittleEndianBytes() {
    var random = SeededRandom(seed: 8)
    for _ in 0..<2_000 {
      let bits = random.next()
      Self.check(UInt8(truncatingIfNeeded: bits))
      Self.check(Int8(truncatingIfNeeded: bits))
      Self.check(UInt16(truncatingIfNeeded: bits))
      Self.check(Int16(truncatingIfNeeded: bits))
      Self.check(UInt32(truncatingIfNeeded: bits))
      Self.check(Int32(truncatingIfNeeded: bits))
      Self.check(bits)
      Self.check(Int64(bitPattern: bits))
    }
    for value: Int64 in [0, -1, 1, .min, .max, 255, 256, -256] { Self.check(value) }
    for value: UInt32 in [0, .max, 0x0102_0304] { Self.check(value) }
  }
}
