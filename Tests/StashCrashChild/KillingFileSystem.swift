import JSONLines
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real file system, until its `killAt`-th failable call (every call but `close` and
/// `unlock`), where the process sends itself SIGKILL: before the call, or in the middle of a
/// write after `tear` bytes of it.
final class KillingFileSystem: FileSystem {
  private let base = POSIXFileSystem()
  private let killAt: Int
  private let tear: Int
  private let count = Mutex(0)

  init(killAt: Int, tear: Int) {
    self.killAt = killAt
    self.tear = tear
  }

  /// How many failable calls were made.
  var calls: Int { count.withLock { $0 } }

  /// Counts a call, and dies at the chosen one (after writing part of `bytes`, if given).
  private func tick(
    writing bytes: UnsafeRawBufferPointer? = nil, to file: FileDescriptor? = nil,
    at offset: Int64 = 0
  ) {
    let number = count.withLock { value in
      value += 1
      return value
    }
    guard number == killAt else { return }
    if let bytes, let file, tear >= 0 {
      let kept = min(tear, bytes.count)
      if kept > 0 {
        try? base.write(file, UnsafeRawBufferPointer(rebasing: bytes[0..<kept]), at: offset)
      }
    }
    kill(getpid(), SIGKILL)
    while true { pause() }
  }

  func open(_ path: String, _ mode: OpenMode, options: OpenOptions) throws(FileSystemError)
    -> FileDescriptor
  {
    tick()
    return try base.open(path, mode, options: options)
  }

  func close(_ file: FileDescriptor) { base.close(file) }

  func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int {
    tick()
    return try base.read(file, into: buffer, at: offset)
  }

  func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    tick(writing: bytes, to: file, at: offset)
    try base.write(file, bytes, at: offset)
  }

  func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    tick()
    try base.synchronize(file)
  }

  func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    tick()
    try base.truncate(file, to: size)
  }

  func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    tick()
    return try base.identity(of: file)
  }

  func identity(atPath path: String, followingLinks: Bool) throws(FileSystemError)
    -> FileIdentity?
  {
    tick()
    return try base.identity(atPath: path, followingLinks: followingLinks)
  }

  func rename(_ source: String, to destination: String) throws(FileSystemError) {
    tick()
    try base.rename(source, to: destination)
  }

  func link(_ source: String, to destination: String) throws(FileSystemError) {
    tick()
    try base.link(source, to: destination)
  }

  func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    tick()
    try base.synchronizeDirectory(path)
  }

  func makeDirectory(_ path: String) throws(FileSystemError) {
    tick()
    try base.makeDirectory(path)
  }

  func removeFile(_ path: String) throws(FileSystemError) {
    tick()
    try base.removeFile(path)
  }

  func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    tick()
    return try base.contentsOfDirectory(path)
  }

  func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    tick()
    return try base.tryLock(file)
  }

  func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
