import JSONLines
import StashFiles
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension SharedFiles {
  /// How publishing a file ended.
  enum Published: Equatable {
    /// The file is now under its final name.
    case published
    /// Something was already there: nothing was replaced, and the bytes were not published.
    case exists
    /// A folder on the way is a link or a special file: nothing was written.
    case unsafe(path: String, kind: FileKind)
  }

  /// Publishes `bytes` as `relative` without ever replacing a file already there.
  ///
  /// The bytes go to a unique temporary name in the same folder (`O_EXCL`, never through a
  /// link), are synchronized, and are linked to the final name; `link` fails with `EEXIST`
  /// rather than replace anything, so two writers of one name can never overwrite each other.
  /// The temporary name is then removed and the folder synchronized.
  ///
  /// Some file systems have no hard links (FAT and exFAT, some network and FUSE shares answer
  /// `EPERM` or `ENOTSUP`). There the final name itself is created with `O_EXCL` and written
  /// in place. The trade-off: until the write and its `fsync` finish, other machines can see
  /// the file incomplete (they report it as waiting, never apply it), and a crash in the
  /// middle leaves it incomplete for good: other devices keep reporting it as waiting, while
  /// its versions, still pending here, go out in the next segment (nothing is lost; the
  /// leftover can be removed by hand). It still never replaces anyone's file. A no-replace
  /// rename (`renameat2(RENAME_NOREPLACE)`, `renamex_np(RENAME_EXCL)`) would close that
  /// window where the file system has it; the file-system seam does not offer it yet.
  ///
  /// - Parameters:
  ///   - bytes: The whole file.
  ///   - relative: Its final name, relative to the root.
  ///   - unique: A fresh identifier for the temporary name.
  func publish(
    _ bytes: [UInt8], as relative: String, unique: String
  ) throws(FileSystemError) -> Published {
    let parts = relative.split(separator: "/")
    let folder = parts.dropLast().joined(separator: "/")
    if !folder.isEmpty, let (culprit, kind) = try makeFolders(folder) {
      return .unsafe(path: culprit, kind: kind)
    }
    let final = absolute(relative)
    let temporary = TemporaryName.path(for: final, unique: unique)
    try writeNew(bytes, at: temporary)
    do {
      try fileSystem.link(temporary, to: final)
    } catch {
      try? fileSystem.removeFile(temporary)
      if error.code == EEXIST { return .exists }
      guard Self.meansNoHardLinks(error.code) else { throw error.named(relative) }
      return try publishInPlace(bytes, at: final, folder: folder)
    }
    try? fileSystem.removeFile(temporary)
    try fileSystem.synchronizeDirectory(folder.isEmpty ? root : absolute(folder))
    return .published
  }

  /// The fallback without hard links: create the final name exclusively and write it.
  private func publishInPlace(
    _ bytes: [UInt8], at final: String, folder: String
  ) throws(FileSystemError) -> Published {
    do {
      try writeNew(bytes, at: final)
    } catch {
      if error.code == EEXIST { return .exists }
      throw error
    }
    try fileSystem.synchronizeDirectory(folder.isEmpty ? root : absolute(folder))
    return .published
  }

  /// Creates `path` (which must not exist, and is never followed if it is a link), writes
  /// `bytes` and synchronizes them. A failed write removes what it created.
  private func writeNew(_ bytes: [UInt8], at path: String) throws(FileSystemError) {
    let descriptor = try fileSystem.open(path, .createNew, options: [.noFollow])
    defer { fileSystem.close(descriptor) }
    do {
      try fileSystem.write(descriptor, bytes, at: 0)
      try fileSystem.synchronize(descriptor)
    } catch {
      try? fileSystem.removeFile(path)
      throw FileSystemError(
        operation: error.operation, path: path, code: error.code, reason: error.reason)
    }
  }

  /// Whether a failed `link` means the file system cannot make hard links at all.
  static func meansNoHardLinks(_ code: Int32) -> Bool {
    [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EXDEV].contains(code)
  }
}
