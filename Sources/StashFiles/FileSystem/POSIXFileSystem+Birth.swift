#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension POSIXFileSystem {
  public func birthTime(atPath path: String) -> BirthTime? {
    #if canImport(Darwin)
      var status = stat()
      guard stat(path, &status) == 0 else { return nil }
      return BirthTime(
        seconds: Int64(status.st_birthtimespec.tv_sec),
        nanoseconds: Int64(status.st_birthtimespec.tv_nsec))
    #elseif os(Linux)
      return Statx.birthTime(atPath: path)
    #else
      return nil
    #endif
  }
}

#if os(Linux)
  /// `statx(2)`, which the C library has had since glibc 2.28 but the Swift overlay does not
  /// export: looked up once by name and called with the kernel's `struct statx` as 256 bytes.
  private enum Statx {
    private typealias Function =
      @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer
      ) -> Int32

    private static let function: Function? = {
      guard let symbol = dlsym(nil, "statx") else { return nil }
      return unsafeBitCast(symbol, to: Function.self)
    }()

    /// `STATX_BTIME`, `AT_FDCWD`, and where `stx_mask` and `stx_btime` are in the struct
    /// (`linux/stat.h`: a `u32` mask first; the birth time, a signed 64-bit second count and
    /// an unsigned 32-bit nanosecond count, at byte 80 of the 256).
    private static let birthMask: UInt32 = 0x800
    private static let currentDirectory: Int32 = -100
    private static let birthOffset = 80

    static func birthTime(atPath path: String) -> BirthTime? {
      guard let function else { return nil }
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
      defer { buffer.deallocate() }
      buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
      let status = path.withCString { function(currentDirectory, $0, 0, birthMask, buffer) }
      guard status == 0, buffer.load(as: UInt32.self) & birthMask != 0 else { return nil }
      let seconds = buffer.load(fromByteOffset: birthOffset, as: Int64.self)
      let nanoseconds = buffer.load(fromByteOffset: birthOffset + 8, as: UInt32.self)
      return BirthTime(seconds: seconds, nanoseconds: Int64(nanoseconds))
    }
  }
#endif
