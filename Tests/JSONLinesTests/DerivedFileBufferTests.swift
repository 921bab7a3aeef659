import JSONLines
import StashBase
import StashTestSupport
import Testing

/// A derived file's bytes are its body's buffer with what precedes the body inserted at its
/// start (issue 26, item 4): a large store's index (tens of megabytes) was held three times
/// over while it was written, the builder's entries, the body copied from them, and the
/// file's bytes copied from the body.
@Suite struct DerivedFileBufferTests {
  static let kind = DerivedFile(tag: "stash.test.buffer", version: 3)

  static func body(_ length: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    return random.bytes(length)
  }

  @Test(arguments: [0, 1, 4095, 4096, 4097, 70_000])
  func aBodyWithRoomBecomesTheFileInPlace(length: Int) {
    let source = DerivedFile.Source.fingerprint([1, 2, 3])
    let head: [UInt8] = [9, 8, 7, 6]
    let plain = Self.body(length, seed: UInt64(length))
    // The reference: a body with no room, which the encoding copies.
    let copied = Self.kind.encode(source: source, head: head, body: Array(plain))
    let room = Self.kind.prefixLength(bodyLength: length, source: source, head: head.count)
    #expect(copied.count == room + length, "the prefix is exactly what prefixLength says")
    var roomy = [UInt8]()
    roomy.reserveCapacity(length + room)
    roomy += plain
    let address = roomy.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    let inPlace = Self.kind.encode(source: source, head: head, body: consume roomy)
    #expect(inPlace == copied)
    #expect(inPlace.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)
  }
}
