/// One lane type the ChaCha rounds run on: a single `UInt32` word, or a vector of the same
/// word from several blocks at once.
///
/// The rounds are written once, generically, and specialised for `UInt32` (one block) and
/// `SIMD4<UInt32>` (four consecutive blocks, word `i` of block `j` in lane `j`), which the
/// compiler maps onto 128-bit vector registers on x86-64 (SSE2) and arm64 (NEON).
protocol ChaChaLane {
  /// Addition modulo 2^32 in every lane.
  static func &+ (lhs: Self, rhs: Self) -> Self
  /// Exclusive or in every lane.
  static func ^ (lhs: Self, rhs: Self) -> Self
  /// Every lane rotated left by `count` bits (0 < count < 32).
  func rotatedLeft(_ count: UInt32) -> Self
}

extension UInt32: ChaChaLane {
  @inline(__always)
  func rotatedLeft(_ count: UInt32) -> UInt32 {
    (self &<< count) | (self &>> (32 &- count))
  }
}

extension SIMD4: ChaChaLane where Scalar == UInt32 {
  /// The two shifted halves are added, not ORed (the same value: they share no bit). With
  /// `|` the compiler recognises a rotation, and x86-64 has no vector rotation before
  /// AVX-512, so it moved every lane to a general register and back (measured: the AEAD 2.4 times
  /// slower); with `&+` it keeps two vector shifts and an OR.
  @inline(__always)
  func rotatedLeft(_ count: UInt32) -> SIMD4<UInt32> {
    (self &<< count) &+ (self &>> (32 &- count))
  }
}

/// The ChaCha quarter round of RFC 8439 section 2.1 on four lanes.
@inline(__always)
func quarterRound<Lane: ChaChaLane>(
  _ a: inout Lane, _ b: inout Lane, _ c: inout Lane, _ d: inout Lane
) {
  a = a &+ b
  d = (d ^ a).rotatedLeft(16)
  c = c &+ d
  b = (b ^ c).rotatedLeft(12)
  a = a &+ b
  d = (d ^ a).rotatedLeft(8)
  c = c &+ d
  b = (b ^ c).rotatedLeft(7)
}

/// The sixteen words of a ChaCha state, in the matrix order of RFC 8439 section 2.3.
///
/// Kept as sixteen stored properties rather than an array so that the optimiser holds them in
/// registers: no allocation, no bounds checks.
struct ChaChaState<Lane: ChaChaLane> {
  var x0: Lane, x1: Lane, x2: Lane, x3: Lane
  var x4: Lane, x5: Lane, x6: Lane, x7: Lane
  var x8: Lane, x9: Lane, x10: Lane, x11: Lane
  var x12: Lane, x13: Lane, x14: Lane, x15: Lane

  /// The 20 rounds (10 column rounds interleaved with 10 diagonal rounds), without the
  /// final addition of the input: HChaCha20 uses them as they are.
  @inline(__always)
  mutating func permute() {
    permute { _ in }
  }

  /// The 20 rounds, with `work(round)` run after double round `round` (0 to 9).
  ///
  /// The AEAD passes Poly1305 here, sealing and opening: the rounds keep the vector units
  /// busy and Poly1305 the integer multiplier and adders, so a processor that runs
  /// instructions out of order overlaps the two instead of running one after the other
  /// ("stitching").
  @inline(__always)
  mutating func permute(interleaving work: (Int) -> Void) {
    for round in 0..<10 {
      quarterRound(&x0, &x4, &x8, &x12)
      quarterRound(&x1, &x5, &x9, &x13)
      quarterRound(&x2, &x6, &x10, &x14)
      quarterRound(&x3, &x7, &x11, &x15)
      quarterRound(&x0, &x5, &x10, &x15)
      quarterRound(&x1, &x6, &x11, &x12)
      quarterRound(&x2, &x7, &x8, &x13)
      quarterRound(&x3, &x4, &x9, &x14)
      work(round)
    }
  }

  /// Adds another state word by word (the block function's last step).
  @inline(__always)
  mutating func add(_ other: ChaChaState<Lane>) {
    x0 = x0 &+ other.x0
    x1 = x1 &+ other.x1
    x2 = x2 &+ other.x2
    x3 = x3 &+ other.x3
    x4 = x4 &+ other.x4
    x5 = x5 &+ other.x5
    x6 = x6 &+ other.x6
    x7 = x7 &+ other.x7
    x8 = x8 &+ other.x8
    x9 = x9 &+ other.x9
    x10 = x10 &+ other.x10
    x11 = x11 &+ other.x11
    x12 = x12 &+ other.x12
    x13 = x13 &+ other.x13
    x14 = x14 &+ other.x14
    x15 = x15 &+ other.x15
  }
}

extension ChaChaState where Lane == UInt32 {
  /// The initial state for a key, a block counter and a 96-bit nonce (three words).
  @inline(__always)
  init(key k: SymmetricKey.Words, counter: UInt32, nonce n: (UInt32, UInt32, UInt32)) {
    (x0, x1, x2, x3) = (0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574)
    (x4, x5, x6, x7, x8, x9, x10, x11) = k
    (x12, x13, x14, x15) = (counter, n.0, n.1, n.2)
  }

  /// Calls `body` with the state's 64 bytes, each word little-endian.
  @inline(__always)
  func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    var words = (
      x0.littleEndian, x1.littleEndian, x2.littleEndian, x3.littleEndian,
      x4.littleEndian, x5.littleEndian, x6.littleEndian, x7.littleEndian,
      x8.littleEndian, x9.littleEndian, x10.littleEndian, x11.littleEndian,
      x12.littleEndian, x13.littleEndian, x14.littleEndian, x15.littleEndian
    )
    return withUnsafeBytes(of: &words, body)
  }
}

extension ChaChaState where Lane == SIMD4<UInt32> {
  /// Four consecutive blocks' states: `block` in lane 0, `block + 1` in lane 1, and so on.
  @inline(__always)
  init(_ one: ChaChaState<UInt32>) {
    x0 = Lane(repeating: one.x0)
    x1 = Lane(repeating: one.x1)
    x2 = Lane(repeating: one.x2)
    x3 = Lane(repeating: one.x3)
    x4 = Lane(repeating: one.x4)
    x5 = Lane(repeating: one.x5)
    x6 = Lane(repeating: one.x6)
    x7 = Lane(repeating: one.x7)
    x8 = Lane(repeating: one.x8)
    x9 = Lane(repeating: one.x9)
    x10 = Lane(repeating: one.x10)
    x11 = Lane(repeating: one.x11)
    x12 = Lane(repeating: one.x12) &+ Lane(0, 1, 2, 3)
    x13 = Lane(repeating: one.x13)
    x14 = Lane(repeating: one.x14)
    x15 = Lane(repeating: one.x15)
  }
}
