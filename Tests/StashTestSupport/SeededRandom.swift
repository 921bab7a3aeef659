/// A small, fast, repeatable random number generator (SplitMix64).
///
/// Randomized tests take their seed from here so that a failure can be replayed with one
/// command: the seed is printed, and `STASH_SEED=<n>` replays it.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// The seed this generator started from.
  public let seed: UInt64

  /// Creates a generator that produces the same sequence for the same seed.
  public init(seed: UInt64) {
    self.seed = seed
    self.state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// `count` random bytes.
  public mutating func bytes(_ count: Int) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(count)
    while out.count < count {
      var word = next()
      for _ in 0..<min(8, count - out.count) {
        out.append(UInt8(truncatingIfNeeded: word))
        word >>= 8
      }
    }
    return out
  }
}
