#if canImport(Glibc)
  import Glibc
#endif

/// glibc's malloc keeps up to eight arenas a core, and memory one thread freed in its arena
/// is not reused by a thread allocating in another: a first sync or an import, whose batches
/// are decoded and encoded on every core (``Parallel``), then faults in fresh pages for what
/// another arena holds free. One arena (what `MALLOC_ARENA_MAX=1` does) took the peak of
/// both from 390 to 335-350 MB and from 368 to 319 MB at 100,000 items, at the same CPU time
/// (issue 26, item 4).
///
/// A process-wide setting: the `stash` tool makes it as it starts, before any thread; a
/// library never does (an app embedding Stash chooses for its process).
public enum MallocArenas {
  /// Limits malloc to `count` arenas for the rest of the process (arenas already made stay);
  /// `true` when the allocator took the limit (glibc's `mallopt(M_ARENA_MAX)`, found at run
  /// time: Swift's Glibc module does not declare it), `false` elsewhere.
  @discardableResult
  public static func limit(to count: Int32) -> Bool {
    #if canImport(Glibc)
      // `M_ARENA_MAX` in glibc's malloc.h.
      let arenaMax: Int32 = -8
      guard count >= 1, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
      else { return false }
      typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
      return unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count) == 1
    #else
      return false
    #endif
  }
}
