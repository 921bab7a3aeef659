import JSONLines
public import StashFiles
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ScriptedFileSystem {
  // MARK: - FileSystem

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    if isDenied(path) {
      throw FileSystemError(
        operation: "open", path: path, code: EACCES, reason: "Permission denied (injected)")
    }
    let descriptor = try simple(.open, path) { () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.open(path, mode, options: options) }
      if let recorder { return try recorder.open(path, mode, call) }
      return try call()
    }
    opened(descriptor, path)
    return descriptor
  }

  public func close(_ file: FileDescriptor) {
    let (path, _) = describe(file)
    _ = fate(.close, path, descriptor: file.rawValue)
    // Never pass a double close on: the number may belong to someone else by now.
    guard closing(file) else { return }
    if let recorder { recorder.close(file) { base.close(file) } } else { base.close(file) }
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
    case (.kill(let stored), _):
      if !stored.isEmpty { try? base.write(file, stored, at: offset) }
      die()
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
      let call = { () throws(FileSystemError) in try self.base.write(file, bytes, at: offset) }
      if let recorder { try recorder.write(file, bytes, at: offset, call) } else { try call() }
      wrote(path, at: offset, count: bytes.count)
    }
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    let (path, name) = describe(file)
    try simple(
      .fsync, path, descriptor: file.rawValue, name: name, fault: .synchronize
    ) {
      () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.synchronize(file) }
      if let recorder { try recorder.synchronize(file, call) } else { try call() }
    }
    synchronized(path)
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    let (path, name) = describe(file)
    try simple(
      .truncate, path, descriptor: file.rawValue, name: name, fault: .truncate
    ) {
      () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.truncate(file, to: size) }
      if let recorder { try recorder.truncate(file, to: size, call) } else { try call() }
    }
    truncated(path, to: size)
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    let (path, name) = describe(file)
    return try simple(.stat, path, descriptor: file.rawValue, name: name) {
      () throws(FileSystemError) in reported(try base.identity(of: file))
    }
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try simple(.stat, path) { () throws(FileSystemError) in
      try base.identity(atPath: path, followingLinks: followingLinks).map(reported)
    }
  }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    state.withLock { $0.beforePublish }?(destination)
    try simple(.rename, source + " -> " + destination, name: source, fault: .rename) {
      () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.rename(source, to: destination) }
      if let recorder { try recorder.rename(source, to: destination, call) } else { try call() }
    }
    synchronized(source, movedTo: destination)
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    let (hook, failure) = state.withLock { ($0.beforePublish, $0.linkFailure) }
    if let failure {
      throw FileSystemError(
        operation: "link", path: destination, code: failure,
        reason: String(cString: strerror(failure)) + " (injected)")
    }
    hook?(destination)
    try simple(.link, source + " -> " + destination, name: destination) {
      () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.link(source, to: destination) }
      if let recorder { try recorder.link(source, to: destination, call) } else { try call() }
    }
  }

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    try simple(.fsyncFolder, path) { () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.synchronizeDirectory(path) }
      if let recorder { try recorder.synchronizeDirectory(path, call) } else { try call() }
    }
  }

  public func makeDirectory(_ path: String) throws(FileSystemError) {
    try simple(.mkdir, path) { () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.makeDirectory(path) }
      if let recorder { try recorder.makeDirectory(path, call) } else { try call() }
    }
  }

  public func removeFile(_ path: String) throws(FileSystemError) {
    try simple(.remove, path) { () throws(FileSystemError) in
      let call = { () throws(FileSystemError) in try self.base.removeFile(path) }
      if let recorder { try recorder.removeFile(path, call) } else { try call() }
    }
    synchronized(path)
  }

  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    state.withLock { $0.beforeListing }?(path)
    return try simple(.list, path) { () throws(FileSystemError) in
      try base.contentsOfDirectory(path)
    }
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

  /// An identity as this file system reports it (see ``init(reporting:)``).
  private func reported(_ identity: FileIdentity) -> FileIdentity {
    guard let recorded = identities[IdentityKey(identity)] else { return identity }
    return FileIdentity(
      device: recorded.device, inode: recorded.inode, size: identity.size,
      permissions: identity.permissions, kind: identity.kind)
  }
}
