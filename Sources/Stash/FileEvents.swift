#if os(Linux)
  import Glibc

  /// File-system events on what a sync reads: a change there ends a watch's wait at once, and
  /// the polling that follows decides whether it is news. Without them (a platform with
  /// neither inotify nor kqueue, or the system refusing them) the watch polls alone, which is
  /// correct on its own.
  ///
  /// On Linux, inotify watches on the folders (one on a folder also sees its files written).
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

    /// Watches `folders` (a folder watched already keeps its watch; a missing one is skipped
    /// and tried again at the next call). `files` are in those folders, whose watches see
    /// them written.
    func watch(folders: [String], files: [String]) {
      for path in folders { _ = inotify_add_watch(descriptor, path, Self.mask) }
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
#elseif canImport(Darwin)
  import Darwin

  /// The `kevent` call (a bare `kevent(...)` is read as the struct's initializer).
  private let keventCall = kevent

  /// File-system events on what a sync reads: a change there ends a watch's wait at once, and
  /// the polling that follows decides whether it is news. Without them (the system refusing
  /// a kqueue) the watch polls alone, which is correct on its own.
  ///
  /// On Apple platforms, kqueue's vnode events (what a dispatch source of file-system events
  /// is built on). A watch on a folder sees entries added, removed or renamed there, not its
  /// files written, so the files a sync reads in place (the two stores) are watched one by
  /// one. A file in the shared folder written in place (sync tools write a new file and
  /// rename it) is seen by the polling, at the next tick.
  final class FileEvents {
    private let queue: Int32
    private var watches = DescriptorWatches<Int32>()
    private static let flags = UInt32(
      NOTE_DELETE | NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | NOTE_LINK | NOTE_RENAME
        | NOTE_REVOKE)

    /// Watches nothing yet; `nil` when the system refuses a kqueue.
    init?() {
      queue = kqueue()
      if queue < 0 { return nil }
    }

    deinit {
      watches.closeAll { _ = close($0) }
      close(queue)
    }

    /// Watches `folders` and `files`, each on the file its path names now (a path watched
    /// already keeps its watch while it names the same file; a missing one is skipped and
    /// tried again at the next call).
    func watch(folders: [String], files: [String]) {
      let queue = self.queue
      watches.update(
        to: folders + files, identify: Self.identity(at:),
        open: { path in
          let descriptor = open(path, O_EVTONLY)
          guard descriptor >= 0 else { return nil }
          var change = kevent(
            ident: UInt(descriptor), filter: Int16(EVFILT_VNODE),
            flags: UInt16(EV_ADD | EV_CLEAR), fflags: Self.flags, data: 0, udata: nil)
          var info = stat()
          guard keventCall(queue, &change, 1, nil, 0, nil) == 0, fstat(descriptor, &info) == 0
          else {
            close(descriptor)
            return nil
          }
          return (descriptor, Self.identity(of: info))
        },
        close: { _ = close($0) })
    }

    /// Waits up to `milliseconds` for an event, then takes every pending one.
    ///
    /// - Returns: Whether an event came.
    func wait(milliseconds: Int32) -> Bool {
      var timeout = timespec(
        tv_sec: Int(milliseconds / 1000), tv_nsec: Int(milliseconds % 1000) * 1_000_000)
      var events: [kevent] = Array(repeating: kevent(), count: 16)
      var count = keventCall(queue, nil, 0, &events, Int32(events.count), &timeout)
      guard count > 0 else { return false }
      var now = timespec(tv_sec: 0, tv_nsec: 0)
      while count == Int32(events.count) {
        count = keventCall(queue, nil, 0, &events, Int32(events.count), &now)
      }
      return true
    }

    private static func identity(at path: String) -> DescriptorWatches<Int32>.Identity? {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      return identity(of: info)
    }

    private static func identity(of info: stat) -> DescriptorWatches<Int32>.Identity {
      .init(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(info.st_ino))
    }
  }
#else
  /// File-system events, on a platform where the watch has none: it polls alone, which is
  /// correct on its own.
  final class FileEvents {
    /// Always `nil`: there are no events to wait for.
    init?() { return nil }

    /// Nothing to watch.
    func watch(folders: [String], files: [String]) {}

    /// No event ever comes.
    func wait(milliseconds: Int32) -> Bool { false }
  }
#endif
