public import JSONLines

extension PowerCutState {
  /// Writes the state's folders and files under `folder` (which must not exist yet).
  ///
  /// - Parameter identities: Each recorded file's device and inode
  ///   (``PowerCutReplay/identities``).
  /// - Returns: A file system that shows each written file under the device and inode it had
  ///   when it was recorded, as the disk would after a reboot: an index or a seal that names
  ///   a store by its inode then still matches it.
  /// - Throws: ``FileSystemError``.
  public func write(
    to folder: String, identities: [Int: FileIdentity]
  ) throws(FileSystemError) -> RecordedIdentityFileSystem {
    let system = POSIXFileSystem()
    try system.makeDirectory(folder)
    for directory in directories.sorted() where !directory.isEmpty {
      try system.makeDirectory(folder + "/" + directory)
    }
    var mapping: [RecordedIdentityFileSystem.Key: FileIdentity] = [:]
    for path in files.keys.sorted() {
      let descriptor = try system.open(folder + "/" + path, .createNew)
      defer { system.close(descriptor) }
      try system.write(descriptor, files[path]!, at: 0)
      if let number = fileNumbers[path], let recorded = identities[number] {
        mapping[RecordedIdentityFileSystem.Key(try system.identity(of: descriptor))] = recorded
      }
    }
    return RecordedIdentityFileSystem(mapping: mapping)
  }
}

/// The real file system, reporting some files under the device and inode they were recorded
/// with (see ``PowerCutState/write(to:identities:)``); everything else is as it is.
public final class RecordedIdentityFileSystem: FileSystem {
  /// A file's device and inode.
  public struct Key: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ identity: FileIdentity) {
      device = identity.device
      inode = identity.inode
    }
  }

  private let base = POSIXFileSystem()
  private let mapping: [Key: FileIdentity]

  init(mapping: [Key: FileIdentity]) { self.mapping = mapping }

  private func recorded(_ identity: FileIdentity) -> FileIdentity {
    guard let recorded = mapping[Key(identity)] else { return identity }
    return FileIdentity(
      device: recorded.device, inode: recorded.inode, size: identity.size,
      permissions: identity.permissions, kind: identity.kind)
  }

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
    recorded(try base.identity(of: file))
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try base.identity(atPath: path, followingLinks: followingLinks).map(recorded)
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
