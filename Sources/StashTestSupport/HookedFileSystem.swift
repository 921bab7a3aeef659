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
public final class HookedFileSystem: FileSystem {
  private let base = POSIXFileSystem()
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

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    try base.open(path, mode, options: options)
  }

  public func close(_ file: FileDescriptor) { base.close(file) }

  public func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int {
    try base.read(file, into: buffer, at: offset)
  }

  public func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    try base.write(file, bytes, at: offset)
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    try base.synchronize(file)
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    try base.truncate(file, to: size)
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    try base.identity(of: file)
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try base.identity(atPath: path, followingLinks: followingLinks)
  }

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

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    try base.synchronizeDirectory(path)
  }

  public func makeDirectory(_ path: String) throws(FileSystemError) {
    try base.makeDirectory(path)
  }

  public func removeFile(_ path: String) throws(FileSystemError) { try base.removeFile(path) }

  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    hooks.withLock { $0.beforeListing }?(path)
    return try base.contentsOfDirectory(path)
  }

  public func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    try base.tryLock(file)
  }

  public func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
