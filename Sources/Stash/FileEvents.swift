#if os(Linux)
  import Glibc

  /// inotify watches on the folders a sync reads (Linux only): a change there ends a watch's
  /// wait at once, and the polling that follows decides whether it is news. Without it (other
  /// platforms, or inotify refused) the watch polls alone, which is correct on its own.
  final class FileEvents {
    private let descriptor: Int32
    private static let mask =
      UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)
      | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF)
      | UInt32(IN_MOVE_SELF)

    /// Watches nothing yet; `nil` when the system refuses an inotify instance.
    init?() {
      descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
      if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }

    /// Watches `paths` (a path watched already keeps its watch; a missing one is skipped and
    /// tried again at the next call).
    func watch(_ paths: [String]) {
      for path in paths { _ = inotify_add_watch(descriptor, path, Self.mask) }
    }

    /// Waits up to `milliseconds` for an event, then reads every pending one.
    ///
    /// Events on the folder's `lock` alone are not news: every `stash` command, a `show` too,
    /// opens it for writing, and counting them kept a watch settling while another process
    /// read the folder.
    ///
    /// - Returns: Whether an event other than the lock's came.
    func wait(milliseconds: Int32) -> Bool {
      var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&request, 1, milliseconds) > 0 else { return false }
      var news = false
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        news = news || Self.holdsNews(buffer[..<count])
      }
      return news
    }

    /// Whether `events` (whole `inotify_event` records: a 16-byte head whose last field is the
    /// name's padded length, then the name) name anything but the lock file.
    static func holdsNews(_ events: ArraySlice<UInt8>) -> Bool {
      var offset = events.startIndex
      while offset + 16 <= events.endIndex {
        let length = events[(offset + 12)..<(offset + 16)].reversed().reduce(0) {
          $0 << 8 | Int($1)
        }
        let start = offset + 16
        let end = min(start + length, events.endIndex)
        let name = events[start..<end].prefix { $0 != 0 }
        if !name.elementsEqual("lock".utf8) { return true }
        offset = start + length
      }
      return false
    }
  }
#endif
