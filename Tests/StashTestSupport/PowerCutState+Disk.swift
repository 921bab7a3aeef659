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
public final class RecordedIdentityFileSystem: ForwardingFileSystem {
  /// A file's device and inode.
  public struct Key: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ identity: FileIdentity) {
      device = identity.device
      inode = identity.inode
    }
  }

  public let base: any FileSystem = POSIXFileSystem()
  private let mapping: [Key: FileIdentity]

  init(mapping: [Key: FileIdentity]) { self.mapping = mapping }

  private func recorded(_ identity: FileIdentity) -> FileIdentity {
    guard let recorded = mapping[Key(identity)] else { return identity }
    return FileIdentity(
      device: recorded.device, inode: recorded.inode, size: identity.size,
      permissions: identity.permissions, kind: identity.kind)
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    recorded(try base.identity(of: file))
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try base.identity(atPath: path, followingLinks: followingLinks).map(recorded)
  }
}
