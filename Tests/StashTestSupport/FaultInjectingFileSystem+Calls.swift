public import JSONLines

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension FaultInjectingFileSystem {
  // MARK: - FileSystem

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    if isDenied(path) {
      throw FileSystemError(
        operation: "open", path: path, code: EACCES, reason: "Permission denied (injected)")
    }
    let descriptor = try simple(.open, path) { () throws(FileSystemError) in
      try base.open(path, mode, options: options)
    }
    opened(descriptor, path)
    return descriptor
  }

  public func close(_ file: FileDescriptor) {
    let (path, _) = describe(file)
    _ = fate(.close, path, descriptor: file.rawValue)
    // Never pass a double close on: the number may belong to someone else by now.
    guard closing(file) else { return }
    base.close(file)
  }

  public func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int {
    let (path, name) = describe(file)
    return try simple(.read, path, descriptor: file.rawValue, name: name) {
      () throws(FileSystemError) in try base.read(file, into: buffer, at: offset)
    }
  }

  public func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    let (path, name) = describe(file)
    let (fate, fault) = self.fate(.write, path, descriptor: file.rawValue, bytes: bytes) {
      fault in
      switch fault {
      case .write, .fullDisk: true
      case .writeTo(let suffix): path.hasSuffix(suffix)
      default: false
      }
    }
    switch (fate, fault) {
    case (.fail, _), (.proceed, .writeTo?):
      throw injected(.write, name)
    case (.stop, _):
      garbleUnsynced()
      throw stopped(.write, name)
    case (.stopAfter(let stored), _):
      if !stored.isEmpty { try base.write(file, stored, at: offset) }
      wrote(path, at: offset, count: stored.count)
      garbleUnsynced(sparing: (path, offset..<(offset + Int64(stored.count))))
      throw stopped(.write, name)
    case (.proceed, .write(let keeping)?), (.proceed, .fullDisk(let keeping)?):
      let kept = min(keeping, bytes.count)
      if kept > 0 {
        try base.write(file, UnsafeRawBufferPointer(rebasing: bytes[0..<kept]), at: offset)
      }
      guard case .fullDisk = fault else { throw injected(.write, name) }
      throw FileSystemError(
        operation: "write", path: name, code: ENOSPC,
        reason: "No space left on device (injected)")
    case (.proceed, _):
      try base.write(file, bytes, at: offset)
      wrote(path, at: offset, count: bytes.count)
    }
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    let (path, name) = describe(file)
    try simple(
      .fsync, path, descriptor: file.rawValue, name: name, fault: .synchronize
    ) {
      () throws(FileSystemError) in try base.synchronize(file)
    }
    synchronized(path)
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    let (path, name) = describe(file)
    try simple(
      .truncate, path, descriptor: file.rawValue, name: name, fault: .truncate
    ) {
      () throws(FileSystemError) in try base.truncate(file, to: size)
    }
    truncated(path, to: size)
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    let (path, name) = describe(file)
    return try simple(.stat, path, descriptor: file.rawValue, name: name) {
      () throws(FileSystemError) in try base.identity(of: file)
    }
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try simple(.stat, path) { () throws(FileSystemError) in
      try base.identity(atPath: path, followingLinks: followingLinks)
    }
  }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    try simple(.rename, source + " -> " + destination, name: source, fault: .rename) {
      () throws(FileSystemError) in try base.rename(source, to: destination)
    }
    synchronized(source, movedTo: destination)
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    try simple(.link, source + " -> " + destination, name: destination) {
      () throws(FileSystemError) in try base.link(source, to: destination)
    }
  }

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    try simple(.fsyncFolder, path) { () throws(FileSystemError) in
      try base.synchronizeDirectory(path)
    }
  }

  public func makeDirectory(_ path: String) throws(FileSystemError) {
    try simple(.mkdir, path) { () throws(FileSystemError) in try base.makeDirectory(path) }
  }

  public func removeFile(_ path: String) throws(FileSystemError) {
    try simple(.remove, path) { () throws(FileSystemError) in try base.removeFile(path) }
    synchronized(path)
  }

  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    try simple(.list, path) { () throws(FileSystemError) in try base.contentsOfDirectory(path) }
  }

  public func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    let (path, name) = describe(file)
    return try simple(.lock, path, descriptor: file.rawValue, name: name) {
      () throws(FileSystemError) in try base.tryLock(file)
    }
  }

  public func unlock(_ file: FileDescriptor) {
    let (path, _) = describe(file)
    _ = fate(.unlock, path, descriptor: file.rawValue)
    base.unlock(file)
  }
}
