/// Comparisons whose running time does not depend on where two secrets differ.
///
/// A tag or MAC compared with `==` returns at the first differing byte, so the time it takes
/// tells an attacker how many leading bytes of a forgery were right. These functions look at
/// every byte whatever the contents; only the lengths (which are public) decide early.
public enum ConstantTime {
  /// Whether two byte buffers are equal, in time that depends only on their lengths.
  ///
  /// - Parameters:
  ///   - lhs: One buffer, such as a received tag.
  ///   - rhs: The other, such as the computed tag.
  /// - Returns: `true` when both have the same length and the same bytes.
  @inline(never)
  public static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in 0..<lhs.count {
      difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
  }

  /// Whether two byte arrays are equal, in time that depends only on their lengths.
  ///
  /// - Parameters:
  ///   - lhs: One array.
  ///   - rhs: The other.
  /// - Returns: `true` when both have the same length and the same bytes.
  public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in equal(left, right) } }
  }
}
