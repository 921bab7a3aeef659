#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Bytes from the operating system's cryptographically secure random generator.
///
/// Linux: `getentropy(3)` (the `getrandom(2)` system call, in pieces of at most 256 bytes),
/// which blocks only until the kernel's pool was first seeded, and `/dev/urandom` where the
/// call does not exist (kernels before 3.17). Apple platforms:
/// `arc4random_buf`, which cannot fail. Any failure is thrown; the buffer is never filled
/// with anything weaker, and no partly filled buffer is ever returned.
public enum SystemRandom {
  /// `count` random bytes.
  ///
  /// - Parameter count: How many bytes; 0 gives an empty array.
  /// - Returns: The bytes.
  /// - Throws: `CryptoError.randomnessUnavailable` when the system's generator fails.
  public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: max(0, count))
    let filled = out.withUnsafeMutableBytes { buffer in
      Result { () throws(CryptoError) in try fill(buffer) }
    }
    try filled.get()
    return out
  }

  /// Fills a buffer with random bytes.
  ///
  /// - Parameter buffer: The bytes to overwrite; may be empty.
  /// - Throws: `CryptoError.randomnessUnavailable` when the system's generator fails; the
  ///   buffer's contents must then not be used.
  public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    #if canImport(Darwin)
      arc4random_buf(base, buffer.count)
    #elseif canImport(Glibc) || canImport(Musl)
      var filled = 0
      while filled < buffer.count {
        let count = min(256, buffer.count - filled)
        if getentropy(base + filled, count) == 0 {
          filled += count
        } else if errno == ENOSYS {
          try fillFromDevice(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
          return
        } else if errno != EINTR {
          throw .randomnessUnavailable(reason: "getentropy: \(String(cString: strerror(errno)))")
        }
      }
    #else
      throw .randomnessUnavailable(reason: "no system random generator is known on this platform")
    #endif
  }

  #if canImport(Glibc) || canImport(Musl)
    /// Fills `buffer` from `/dev/urandom`, for kernels without `getrandom`.
    private static func fillFromDevice(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError)
    {
      let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else {
        throw .randomnessUnavailable(reason: "/dev/urandom: \(String(cString: strerror(errno)))")
      }
      defer { close(descriptor) }
      var filled = 0
      while filled < buffer.count {
        let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
        if count > 0 {
          filled += count
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          throw .randomnessUnavailable(reason: "/dev/urandom: read failed")
        }
      }
    }
  #endif
}
