public import JSONLines

/// A file system that passes every call it does not implement itself on to ``base``.
///
/// The test seams (``HookedFileSystem``, ``PowerCutFileSystem``,
/// ``RecordedIdentityFileSystem``) each change a few calls of the real file system; this holds
/// the rest once.
public protocol ForwardingFileSystem: FileSystem {
  /// Where the calls go.
  var base: any FileSystem { get }
}

extension ForwardingFileSystem {
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
    try base.rename(source, to: destination)
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
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
    try base.contentsOfDirectory(path)
  }

  public func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    try base.tryLock(file)
  }

  public func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
