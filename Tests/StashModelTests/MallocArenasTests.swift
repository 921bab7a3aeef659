import Foundation
import StashBase
import Testing

/// The `stash` tool limits malloc to one arena as it starts (``MallocArenas``). What the
/// limit does to memory is measured by `stash-bench` (a first sync's and an import's peak);
/// this holds the seam: on glibc the allocator is found and takes the limit.
@Suite struct MallocArenasTests {
  @Test func glibcTakesTheLimitAndANonsenseOneIsRefused() {
    #if canImport(Glibc)
      // glibc's own default (eight a core), so that the test process is left as it was.
      #expect(MallocArenas.limit(to: Int32(8 * ProcessInfo.processInfo.activeProcessorCount)))
    #else
      #expect(!MallocArenas.limit(to: 16))
    #endif
    #expect(!MallocArenas.limit(to: 0))
  }
}
