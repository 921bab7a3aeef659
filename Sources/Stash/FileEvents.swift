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
    /// - Returns: Whether an event came.
    func wait(milliseconds: Int32) -> Bool {
      var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&request, 1, milliseconds) > 0 else { return false }
      var buffer = [UInt8](repeating: 0, count: 4096)
      while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
      return true
    }
  }
#endif
