#if canImport(Glibc)
  import Glibc
#endif

/// How many bytes a structure keeps on the heap, for the tests that bound what a pass or a
/// store holds per record (issue 26, item 4), measured with glibc's `malloc_info()`.
///
/// Allocation sizes are the same in every run of a build, so a bound per record is no timed
/// assertion; but the other tests of the process allocate and free meanwhile. So a
/// measurement runs in a child process forked for it (``measuredAlone(_:)``), where no other
/// thread runs. Elsewhere than on Linux with glibc there is nothing to measure with, and the
/// tests that need it do nothing.
public enum HeapUsage {
  /// Whether this platform can measure (Linux with glibc).
  public static var isAvailable: Bool {
    #if canImport(Glibc)
      mallocInfo != nil
    #else
      false
    #endif
  }

  /// The bytes the heap holds in use now (small blocks and mapped ones, every arena); 0
  /// where ``isAvailable`` is `false`.
  public static var bytesInUse: Int {
    #if canImport(Glibc)
      // What `mallinfo2()` calls `uordblks + hblkhd`, from the totals `malloc_info()` writes
      // after every arena's: the arenas' memory less their free blocks, and the mapped
      // blocks. (`malloc.h` is not part of Swift's Glibc module, and `mallinfo2` returns a
      // structure that no C function type in Swift can.)
      guard let report = mallocReport() else { return 0 }
      let totals = report.lastRange(of: Array("</heap>".utf8)).map { report[$0.upperBound...] }
      guard let totals else { return 0 }
      return totals.size(after: "<system type=\"current\"")
        - totals.size(after: "<total type=\"fast\"") - totals.size(after: "<total type=\"rest\"")
        + totals.size(after: "<total type=\"mmap\"")
    #else
      0
    #endif
  }

  /// What `measure` returns when run in a child process of this one, forked for it, where no
  /// other thread allocates meanwhile; `nil` where ``isAvailable`` is `false`, or when the
  /// child does not answer within a minute.
  ///
  /// Run `measure`'s work once in this process first: the child then finds every type and
  /// cache it needs ready, and takes no lock another thread of this process may have held
  /// when it was forked. `measure` must not use Dispatch or Swift concurrency, nor print.
  ///
  /// - Parameter measure: Measures something (with ``bytesInUse``) and returns it.
  /// - Returns: What it returned in the child.
  public static func measuredAlone(_ measure: () -> Int) -> Int? {
    #if canImport(Glibc)
      guard isAvailable else { return nil }
      _ = bytesInUse  // what measuring needs, made here too
      var ends: [Int32] = [0, 0]
      guard pipe(&ends) == 0 else { return nil }
      let child = fork()
      if child == 0 {
        close(ends[0])
        var result = measure()
        _ = write(ends[1], &result, MemoryLayout<Int>.size)
        _exit(0)
      }
      close(ends[1])
      defer { close(ends[0]) }
      guard child > 0 else { return nil }
      var result = 0
      var answer = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
      let answered =
        poll(&answer, 1, 60_000) == 1
        && read(ends[0], &result, MemoryLayout<Int>.size) == MemoryLayout<Int>.size
      if !answered { kill(child, SIGKILL) }
      var status: Int32 = 0
      waitpid(child, &status, 0)
      return answered ? result : nil
    #else
      return nil
    #endif
  }

  #if canImport(Glibc)
    private typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

    /// glibc's `malloc_info`, found once (before any fork: a child does not take the
    /// loader's lock, which another thread may have held when it was forked).
    private static var mallocInfo: MallocInfo? {
      mallocInfoAddress.map { unsafeBitCast(UnsafeRawPointer(bitPattern: $0), to: MallocInfo.self) }
    }

    /// Where `malloc_info` is.
    private static let mallocInfoAddress: Int? = {
      guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_info")
      else { return nil }
      return Int(bitPattern: symbol)
    }()

    /// What `malloc_info(0, file)` writes.
    private static func mallocReport() -> [UInt8]? {
      guard let mallocInfo else { return nil }
      var buffer: UnsafeMutablePointer<CChar>?
      var length = 0
      guard let file = open_memstream(&buffer, &length) else { return nil }
      let status = mallocInfo(0, file)
      fclose(file)
      defer { free(buffer) }
      guard status == 0, let buffer else { return nil }
      return UnsafeRawBufferPointer(start: buffer, count: length).map { $0 }
    }
  #endif
}

extension Collection<UInt8> where Index == Int {
  /// Where the last occurrence of `pattern` is.
  fileprivate func lastRange(of pattern: [UInt8]) -> Range<Int>? {
    guard count >= pattern.count else { return nil }
    for start in stride(from: endIndex - pattern.count, through: startIndex, by: -1)
    where self[start..<start + pattern.count].elementsEqual(pattern) {
      return start..<start + pattern.count
    }
    return nil
  }

  /// The number in the `size="…"` attribute that follows the first `tag`, or 0.
  fileprivate func size(after tag: String) -> Int {
    let tag = Array(tag.utf8)
    let attribute = Array("size=\"".utf8)
    guard count >= tag.count,
      let start = (startIndex...endIndex - tag.count).first(where: {
        self[$0..<$0 + tag.count].elementsEqual(tag)
      }),
      let value = (start...endIndex - attribute.count).first(where: {
        self[$0..<$0 + attribute.count].elementsEqual(attribute)
      })
    else { return 0 }
    var number = 0
    for byte in self[(value + attribute.count)...] {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { break }
      number = number * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return number
  }
}
