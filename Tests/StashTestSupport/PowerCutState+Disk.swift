import JSONLines
public import StashFiles

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
  ) throws(FileSystemError) -> ScriptedFileSystem {
    let system = POSIXFileSystem()
    try system.makeDirectory(folder)
    for directory in directories.sorted() where !directory.isEmpty {
      try system.makeDirectory(folder + "/" + directory)
    }
    var mapping: [ScriptedFileSystem.IdentityKey: FileIdentity] = [:]
    for path in files.keys.sorted() {
      let descriptor = try system.open(folder + "/" + path, .createNew)
      defer { system.close(descriptor) }
      try system.write(descriptor, files[path]!, at: 0)
      if let number = fileNumbers[path], let recorded = identities[number] {
        mapping[ScriptedFileSystem.IdentityKey(try system.identity(of: descriptor))] = recorded
      }
    }
    return ScriptedFileSystem(reporting: mapping)
  }
}
