public import JSONLines
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real file system with hooks that run just before a file is published (linked or renamed
/// to its final name) or a folder is listed, and optionally without hard links.
///
/// Tests use it to play a second writer at the worst moment (a file appears at the name being
/// published), a file system such as FAT or some network shares that cannot link, or to watch
/// which lock is held while the transport reads and writes.
public final class HookedFileSystem: ForwardingFileSystem {
  public let base: any FileSystem = POSIXFileSystem()
  private let hooks = Mutex<Hooks>(Hooks())

  private struct Hooks {
    var beforePublish: (@Sendable (_ destination: String) -> Void)?
    var beforeListing: (@Sendable (_ folder: String) -> Void)?
    var linkFailure: Int32?
  }

  /// A file system that behaves like the real one until hooks are set.
  public init() {}

  /// Runs `hook` with the destination before every `link` and `rename`.
  public func beforePublish(_ hook: @escaping @Sendable (_ destination: String) -> Void) {
    hooks.withLock { $0.beforePublish = hook }
  }

  /// Runs `hook` with the folder before every listing.
  public func beforeListing(_ hook: @escaping @Sendable (_ folder: String) -> Void) {
    hooks.withLock { $0.beforeListing = hook }
  }

  /// Makes every `link` fail with `code` (`EPERM` is what FAT and many shares answer).
  public func failLinks(with code: Int32) { hooks.withLock { $0.linkFailure = code } }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    hooks.withLock { $0.beforePublish }?(destination)
    try base.rename(source, to: destination)
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    let (hook, failure) = hooks.withLock { ($0.beforePublish, $0.linkFailure) }
    if let failure {
      throw FileSystemError(
        operation: "link", path: destination, code: failure,
        reason: String(cString: strerror(failure)) + " (injected)")
    }
    hook?(destination)
    try base.link(source, to: destination)
  }

  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    hooks.withLock { $0.beforeListing }?(path)
    return try base.contentsOfDirectory(path)
  }

}
