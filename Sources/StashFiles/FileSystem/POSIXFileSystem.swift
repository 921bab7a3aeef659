#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real file system, through POSIX calls.
public struct POSIXFileSystem: FileSystem {
  /// The real file system.
  public init() {}

  // Descriptors are not tracked per path, so errors name the descriptor's number; callers
  // wrap them with the path they know.
  private func failure(_ operation: String, _ path: String) -> FileSystemError {
    let code = errno
    return FileSystemError(
      operation: operation, path: path, code: code, reason: String(cString: strerror(code)))
  }

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    var flags: Int32
    switch mode {
    case .readOnly: flags = O_RDONLY
    case .readWrite: flags = O_RDWR
    case .readWriteCreate: flags = O_RDWR | O_CREAT
    case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
    }
    if options.contains(.noFollow) { flags |= O_NOFOLLOW }
    if options.contains(.nonBlocking) { flags |= O_NONBLOCK }
    let descriptor = retryingOnInterrupt { systemOpen(path, flags | O_CLOEXEC, 0o600) }
    guard descriptor >= 0 else { throw failure("open", path) }
    return FileDescriptor(rawValue: descriptor)
  }

  public func close(_ file: FileDescriptor) {
    _ = systemClose(file.rawValue)
  }

  public func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int {
    let count = retryingOnInterrupt {
      pread(file.rawValue, buffer.baseAddress, buffer.count, off_t(offset))
    }
    guard count >= 0 else { throw failure("read", "fd \(file.rawValue)") }
    return count
  }

  public func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    var done = 0
    while done < bytes.count {
      let count = retryingOnInterrupt {
        pwrite(
          file.rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
      }
      guard count > 0 else { throw failure("write", "fd \(file.rawValue)") }
      done += count
    }
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    #if canImport(Darwin)
      // fsync on Apple systems does not flush the drive's cache; F_FULLFSYNC does.
      if fcntl(file.rawValue, F_FULLFSYNC) == 0 { return }
    #endif
    guard retryingOnInterrupt({ fsync(file.rawValue) }) == 0 else {
      throw failure("fsync", "fd \(file.rawValue)")
    }
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    guard retryingOnInterrupt({ ftruncate(file.rawValue, off_t(size)) }) == 0 else {
      throw failure("truncate", "fd \(file.rawValue)")
    }
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    var info = stat()
    guard fstat(file.rawValue, &info) == 0 else { throw failure("stat", "fd \(file.rawValue)") }
    return FileIdentity(info)
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    var info = stat()
    let result = followingLinks ? stat(path, &info) : lstat(path, &info)
    guard result == 0 else {
      if errno == ENOENT { return nil }
      throw failure("stat", path)
    }
    return FileIdentity(info)
  }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    guard systemRename(source, destination) == 0 else { throw failure("rename", source) }
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    guard systemLink(source, destination) == 0 else { throw failure("link", destination) }
  }

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    let descriptor = retryingOnInterrupt { systemOpen(path, O_RDONLY | O_CLOEXEC, 0) }
    guard descriptor >= 0 else { throw failure("open folder", path) }
    defer { _ = systemClose(descriptor) }
    #if canImport(Darwin)
      // As for files: fsync on Apple systems does not flush the drive's cache.
      if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
    #endif
    guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else {
      throw failure("fsync folder", path)
    }
  }

  /// Creates the folder (and missing parents), synchronizing each parent whose entries a new
  /// folder was added to, so that a folder a later fsync relies on survives a power loss.
  public func makeDirectory(_ path: String) throws(FileSystemError) {
    if mkdir(path, 0o700) == 0 {
      try synchronizeParent(of: path)
      return
    }
    if errno == EEXIST { return }
    guard errno == ENOENT else { throw failure("create folder", path) }
    let parent = parentPath(of: path)
    guard !parent.isEmpty, parent != path else { throw failure("create folder", path) }
    try makeDirectory(parent)
    if mkdir(path, 0o700) == 0 {
      try synchronizeParent(of: path)
    } else if errno != EEXIST {
      throw failure("create folder", path)
    }
  }

  private func synchronizeParent(of path: String) throws(FileSystemError) {
    let parent = parentPath(of: path)
    try synchronizeDirectory(parent.isEmpty ? "." : parent)
  }

  public func removeFile(_ path: String) throws(FileSystemError) {
    guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove", path) }
  }

  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    guard let directory = opendir(path) else { throw failure("list folder", path) }
    defer { closedir(directory) }
    var names = [String]()
    // The name is read where it lies: copying `entry.pointee.d_name` copies its whole 256-byte
    // field, but readdir's records are only as long as the name, so the copy can read past the
    // end of glibc's buffer and crash (the bug swift-corelibs-foundation#5472 fixed in Process).
    let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
    while let entry = readdir(directory) {
      let name = String(
        cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  public func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    if flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
    if errno == EWOULDBLOCK || errno == EINTR { return false }
    throw failure("lock", "fd \(file.rawValue)")
  }

  public func unlock(_ file: FileDescriptor) {
    _ = flock(file.rawValue, LOCK_UN)
  }
}

extension FileSystemError {
  /// Whether the disk, or the person's share of it, is full (`ENOSPC`, `EDQUOT`).
  public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }

  /// Whether the file system only allows reading (`EROFS`).
  public var isReadOnlyFileSystem: Bool { code == EROFS }
}

/// The folder part of a path ("" when there is none).
package func parentPath(of path: String) -> String {
  var trimmed = Substring(path)
  while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
  guard let slash = trimmed.lastIndex(of: "/") else { return "" }
  return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
}

extension FileIdentity {
  fileprivate init(_ info: stat) {
    let kind: FileKind
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symbolicLink
    default: kind = .other
    }
    self.init(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      permissions: UInt16(info.st_mode & 0o7777), kind: kind)
  }
}

private func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
  while true {
    let result = call()
    if result >= 0 || errno != EINTR { return result }
  }
}

// The module's own `open`, `close`, `link` and `rename` methods shadow the C functions inside the
// type; these names reach the C ones.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  #if canImport(Darwin)
    return Darwin.open(path, flags, mode)
  #elseif canImport(Musl)
    return Musl.open(path, flags, mode)
  #else
    return Glibc.open(path, flags, mode)
  #endif
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  #if canImport(Darwin)
    return Darwin.close(descriptor)
  #elseif canImport(Musl)
    return Musl.close(descriptor)
  #else
    return Glibc.close(descriptor)
  #endif
}

private func systemLink(_ source: String, _ destination: String) -> Int32 {
  #if canImport(Darwin)
    return Darwin.link(source, destination)
  #elseif canImport(Musl)
    return Musl.link(source, destination)
  #else
    return Glibc.link(source, destination)
  #endif
}

private func systemRename(_ source: String, _ destination: String) -> Int32 {
  #if canImport(Darwin)
    return Darwin.rename(source, destination)
  #elseif canImport(Musl)
    return Musl.rename(source, destination)
  #else
    return Glibc.rename(source, destination)
  #endif
}
