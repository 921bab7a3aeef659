#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether enough file descriptors are free for a command to run, checked before any runs.
///
/// A command holds up to ten at once (a sync: the lock, both stores, an index, the shared
/// folder's files and the standard streams). Without a free one, the Dispatch runtime stops
/// the process: the first use of a global queue makes libdispatch set up its event loop,
/// `eventfd` fails with `EMFILE`, and `_dispatch_epoll_init` executes a trap (SIGILL, exit
/// 132, no message; issue 22 has the trace). That is the runtime's, not ours, so the tool
/// asks for room first and says what to do.
enum DescriptorHeadroom {
  /// How many descriptors must be free besides those already open.
  static let needed = 12

  /// Why the process cannot run, or `nil` when there is room.
  static func problem() -> String? {
    var opened: [Int32] = []
    defer { for descriptor in opened { _ = close(descriptor) } }
    for _ in 0..<needed {
      let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else {
        guard errno == EMFILE || errno == ENFILE else { return nil }
        var limit = rlimit()
        #if canImport(Glibc)
          let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
          let resource = RLIMIT_NOFILE
        #endif
        let soft = getrlimit(resource, &limit) == 0 ? "\(limit.rlim_cur)" : "?"
        return "Too few file descriptors are free to run (\(opened.count) of the \(needed) "
          + "needed; the limit is \(soft)); nothing was done; raise the limit (for example "
          + "'ulimit -n 1024') and run the command again"
      }
      opened.append(descriptor)
    }
    return nil
  }
}
