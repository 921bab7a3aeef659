#if os(Linux)
  import Testing

  @testable import Stash

  /// What a watch counts as news among inotify's events (``FileEvents/holdsNews(_:)``).
  @Suite struct FileEventsTests {
    /// One `inotify_event`: watch 1, `mask`, no cookie, `name` padded with zeros to `padded`.
    func event(_ name: String, mask: UInt32 = 0x8, padded: Int = 16) -> [UInt8] {
      func little(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
      }
      let bytes = Array(name.utf8)
      let length = name.isEmpty ? 0 : max(padded, bytes.count + 1)
      return little(1) + little(mask) + little(0) + little(UInt32(length)) + bytes
        + [UInt8](repeating: 0, count: length - bytes.count)
    }

    @Test func theLockFileAloneIsNotNews() {
      #expect(!FileEvents.holdsNews(ArraySlice(event("lock"))))
      #expect(!FileEvents.holdsNews(ArraySlice(event("lock") + event("lock", mask: 0x20))))
    }

    @Test func anyOtherNameOrTheFolderItselfIsNews() {
      #expect(FileEvents.holdsNews(ArraySlice(event("default.store"))))
      #expect(FileEvents.holdsNews(ArraySlice(event("lock") + event("000004.jsonl"))))
      #expect(FileEvents.holdsNews(ArraySlice(event(""))))  // the watched folder itself
      #expect(FileEvents.holdsNews(ArraySlice(event("lock.tmp"))))
      #expect(!FileEvents.holdsNews([]))
    }
  }
#endif
