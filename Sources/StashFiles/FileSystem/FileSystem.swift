/// The file operations the log and the stores need, as a seam for fault injection.
///
/// `POSIXFileSystem` is the real implementation. Tests wrap it with one that fails or tears
/// writes on cue (`ScriptedFileSystem` in `StashTestSupport`), instead of flipping
/// global switches.
public protocol FileSystem: Sendable {
  /// Opens a file.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - mode: How to open it; created files get permissions 0600.
  ///   - options: Whether to refuse a symbolic link as the last component, and whether the
  ///     open itself may block (a FIFO blocks an ordinary open until a writer appears).
  /// - Returns: The open descriptor, which the caller closes.
  /// - Throws: ``FileSystemError`` with the operation and `errno` (`ELOOP` for a refused link).
  func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor

  /// Closes a descriptor; errors are ignored (the data was already synchronized).
  func close(_ file: FileDescriptor)

  /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end).
  func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int

  /// Writes all of `bytes` at `offset`, or throws.
  func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError)

  /// Flushes the file's data to stable storage (`F_FULLFSYNC` on Apple, `fsync` elsewhere).
  func synchronize(_ file: FileDescriptor) throws(FileSystemError)

  /// Cuts the file to `size` bytes.
  func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError)

  /// The identity and size of an open file.
  func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity

  /// The identity and size of the file at `path`, or `nil` when there is none.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - followingLinks: `true` describes what a symbolic link points to (`stat`); `false`
  ///     describes the link itself (`lstat`).
  func identity(atPath path: String, followingLinks: Bool) throws(FileSystemError) -> FileIdentity?

  /// When the file or folder at `path` was born (created), where the file system keeps it
  /// (`statx` on Linux, `st_birthtimespec` on Apple); `nil` when it does not, or cannot say.
  ///
  /// Unlike its device and inode numbers, which a freshly freed inode hands on, a birth time
  /// tells a folder restored in place of another apart from it.
  func birthTime(atPath path: String) -> BirthTime?

  /// Renames `source` to `destination`, replacing it atomically if it exists.
  func rename(_ source: String, to destination: String) throws(FileSystemError)

  /// Makes `destination` a second name (a hard link) of the file `source`; fails with `EEXIST`
  /// rather than replace anything already there.
  ///
  /// This is how a file is published where nothing may ever be replaced: written under a
  /// unique temporary name, synchronized, linked to its final name, then the temporary name
  /// removed.
  func link(_ source: String, to destination: String) throws(FileSystemError)

  /// Flushes a folder's entries (after a create or a rename) to stable storage.
  func synchronizeDirectory(_ path: String) throws(FileSystemError)

  /// Creates a folder with permissions 0700 (and its missing parents); an existing one is fine.
  func makeDirectory(_ path: String) throws(FileSystemError)

  /// Removes a file; a missing file is fine.
  func removeFile(_ path: String) throws(FileSystemError)

  /// The names in a folder (without `.` and `..`), unsorted.
  func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]

  /// Tries to take an exclusive advisory lock (`flock`) without waiting.
  ///
  /// - Returns: `false` when another open file description holds it.
  func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool

  /// Releases an advisory lock taken with ``tryLock(_:)``.
  func unlock(_ file: FileDescriptor)
}

/// An open file descriptor.
public struct FileDescriptor: Hashable, Sendable {
  /// The POSIX descriptor number.
  public let rawValue: Int32

  /// Wraps a descriptor number.
  public init(rawValue: Int32) { self.rawValue = rawValue }
}

/// How to open a file.
public enum OpenMode: Sendable {
  /// Read only; the file must exist.
  case readOnly
  /// Read and write; the file must exist.
  case readWrite
  /// Read and write; created (0600) when missing.
  case readWriteCreate
  /// Read and write; a new file (0600) that must not exist yet.
  case createNew
}

/// How to open a file, besides its mode.
public struct OpenOptions: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8

  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Refuse a symbolic link as the last component of the path (`O_NOFOLLOW`).
  public static let noFollow = OpenOptions(rawValue: 1)
  /// Never wait in the open itself (`O_NONBLOCK`): a FIFO opens at once instead of waiting
  /// for a writer. Reads of regular files are unaffected.
  public static let nonBlocking = OpenOptions(rawValue: 2)
}

/// What kind of entry a path names.
public enum FileKind: Hashable, Sendable {
  /// A regular file.
  case regular
  /// A folder.
  case directory
  /// A symbolic link (only reported when links are not followed).
  case symbolicLink
  /// Anything else: a FIFO, a socket, a device.
  case other
}

/// When a file was born: seconds since 1970 and nanoseconds, as the file system keeps them.
public struct BirthTime: Hashable, Sendable, CustomStringConvertible {
  /// Whole seconds since 1970.
  public let seconds: Int64
  /// Nanoseconds past them.
  public let nanoseconds: Int64

  /// A birth time.
  public init(seconds: Int64, nanoseconds: Int64) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// `seconds.nanoseconds`, nine digits after the point.
  public var description: String {
    let digits = String(nanoseconds)
    return "\(seconds)." + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
  }
}

extension FileSystem {
  /// No birth time: what a file system seam that does not model one answers.
  public func birthTime(atPath path: String) -> BirthTime? { nil }
}

/// Which file this is (device and inode) and how long it is.
public struct FileIdentity: Hashable, Sendable {
  /// The device the file lives on.
  public let device: UInt64
  /// The file's inode number: it changes when the file is replaced by a rename.
  public let inode: UInt64
  /// The file's length in bytes.
  public let size: Int64
  /// The permission bits (such as 0o600).
  public let permissions: UInt16
  /// What kind of entry this is.
  public let kind: FileKind

  /// Describes a file.
  public init(
    device: UInt64, inode: UInt64, size: Int64, permissions: UInt16, kind: FileKind = .regular
  ) {
    self.device = device
    self.inode = inode
    self.size = size
    self.permissions = permissions
    self.kind = kind
  }

  /// Whether two identities name the same file (whatever their sizes).
  public func isSameFile(as other: FileIdentity) -> Bool {
    device == other.device && inode == other.inode
  }
}

/// A file operation that failed, with the path and the system's reason.
public struct FileSystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What was being done, such as `"write"` or `"fsync"`.
  public let operation: String
  /// The file or folder concerned.
  public let path: String
  /// The POSIX error number (0 when the failure was not a system call's).
  public let code: Int32
  /// The system's description of `code`.
  public let reason: String

  /// Describes a failure.
  public init(operation: String, path: String, code: Int32, reason: String) {
    self.operation = operation
    self.path = path
    self.code = code
    self.reason = reason
  }

  public var description: String { "Could not \(operation) '\(path)': \(reason)" }
}

extension FileSystem {
  /// Opens a file, following symbolic links and blocking as usual.
  ///
  /// - Throws: ``FileSystemError``.
  public func open(_ path: String, _ mode: OpenMode) throws(FileSystemError) -> FileDescriptor {
    try open(path, mode, options: [])
  }

  /// The identity and size of what `path` names, following symbolic links.
  ///
  /// - Throws: ``FileSystemError``.
  public func identity(atPath path: String) throws(FileSystemError) -> FileIdentity? {
    try identity(atPath: path, followingLinks: true)
  }

  /// Writes all of `bytes` at `offset`.
  ///
  /// - Throws: ``FileSystemError``.
  public func write(
    _ file: FileDescriptor, _ bytes: [UInt8], at offset: Int64
  ) throws(FileSystemError) {
    let failure: FileSystemError? = bytes.withUnsafeBytes { raw -> FileSystemError? in
      do throws(FileSystemError) {
        try self.write(file, raw, at: offset)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  /// Reads up to `count` bytes at `offset`; fewer at the end of the file.
  ///
  /// - Throws: ``FileSystemError``.
  public func read(
    _ file: FileDescriptor, count: Int, at offset: Int64
  ) throws(FileSystemError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var total = 0
    while total < count {
      let result: Result<Int, FileSystemError> = bytes.withUnsafeMutableBytes { raw in
        Result { () throws(FileSystemError) in
          try self.read(
            file, into: UnsafeMutableRawBufferPointer(rebasing: raw[total...]),
            at: offset + Int64(total))
        }
      }
      let count = try result.get()
      if count == 0 { break }
      total += count
    }
    bytes.removeLast(count - total)
    return bytes
  }
}

extension FileSystem {
  /// Writes a whole file through a synchronized temporary file renamed into place (and
  /// synchronizes the folder), so that `path` holds either nothing new or all of `bytes`.
  ///
  /// - Parameter durable: `false` for a derived file that checks itself (an index): the
  ///   rename still makes it all or nothing, but neither the file nor the folder is
  ///   synchronized, so after a power loss it may be missing or fail its own checksum.
  /// - Throws: ``FileSystemError``; the temporary file is then removed.
  ///
  /// The temporary file's descriptor is closed exactly once, whatever fails: a second close
  /// of its number could close a file another thread has opened since.
  public func writeFileAtomically(
    _ path: String, _ bytes: [UInt8], durable: Bool = true
  ) throws(FileSystemError) {
    let temporary = TemporaryName.path(for: path)
    try removeFile(temporary)
    let descriptor = try open(temporary, .createNew)
    do throws(FileSystemError) {
      try write(descriptor, bytes, at: 0)
      if durable { try synchronize(descriptor) }
    } catch {
      close(descriptor)
      try? removeFile(temporary)
      throw error
    }
    close(descriptor)
    do throws(FileSystemError) {
      try rename(temporary, to: path)
    } catch {
      try? removeFile(temporary)
      throw error
    }
    // The new file is in place; if the folder cannot be synchronized, its name may not
    // survive a power loss, and the caller is told so.
    if durable { try synchronizeDirectory(parentPath(of: path)) }
  }
}
