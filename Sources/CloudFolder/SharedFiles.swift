import JSONLines
import StashFiles
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading and writing inside the shared folder, which other machines and sync tools write.
///
/// - Only regular files are read: each is opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO opens
///   at once instead of waiting for a writer forever; a link as the last component is
///   refused) and checked with `fstat` on the open descriptor, so what is read is what was
///   checked. Its size is checked before a byte is read.
/// - Links are never followed: every folder between the root and a file is checked with
///   `lstat` to be a real folder before the file is opened, listed or written. The root itself
///   may be a link (a person chose it).
/// - Nothing is ever replaced: a file is written under a unique temporary name, synchronized,
///   and published with `link`, which fails rather than replace what is there; where the file
///   system has no hard links, the final name is created with `O_EXCL` and written in place.
///
/// What remains: a folder checked with `lstat` could be swapped for a link before the open
/// that follows (a time-of-check-to-time-of-use window). Closing it needs `openat` with
/// `O_NOFOLLOW` on every component, which the file-system seam does not offer; the window is
/// small, and the damage it allows is bounded by what the final open checks (a regular file,
/// no link as the last component, a size limit).
struct SharedFiles {
  let root: String
  let fileSystem: any FileSystem
  /// The keys of an encrypted folder: photos are then sealed and named by a keyed hash.
  var keyring: FolderKeyring? = nil

  /// What reading a file found.
  enum Read {
    case bytes([UInt8])
    case missing
    /// Something else than a regular file: a link, a folder, a FIFO, a device (or a folder on
    /// the way is not a folder). `path` is the culprit, relative to the root.
    case notRegular(path: String, kind: FileKind)
    case tooLarge(Int64)
  }

  /// What listing a folder found.
  enum Listing {
    case names([String])
    case missing
    case notAFolder(path: String, kind: FileKind)
  }

  func absolute(_ relative: String) -> String { root + "/" + relative }

  /// The entry at `relative` itself (links are not followed), or `nil` when there is none.
  func kind(of relative: String) throws(FileSystemError) -> FileKind? {
    try fileSystem.identity(atPath: absolute(relative), followingLinks: false)?.kind
  }

  /// Checks that every folder from the root down to (not including) the last component of
  /// `relative` is a real folder. Returns the first that is not, or `nil`; a missing one is
  /// reported as missing through `missing`.
  private func checkFolders(
    of relative: String
  ) throws(FileSystemError) -> (culprit: String, kind: FileKind?)? {
    let parts = relative.split(separator: "/").dropLast()
    var path = ""
    for part in parts {
      path += path.isEmpty ? String(part) : "/" + part
      let found = try kind(of: path)
      guard found == .directory else { return (path, found) }
    }
    return nil
  }

  /// What opening a file as a regular file found.
  enum Opened<T> {
    case opened(T)
    case missing
    case notRegular(path: String, kind: FileKind)
  }

  /// Reads a whole file, if it is a regular file of at most `limit` bytes.
  func read(_ relative: String, limit: Int64) throws(FileSystemError) -> Read {
    let opened = try withRegularFile(relative) { (descriptor, size) throws(FileSystemError) in
      size <= limit
        ? Read.bytes(try fileSystem.read(descriptor, count: Int(size), at: 0))
        : .tooLarge(size)
    }
    return Self.read(opened)
  }

  /// Reads at most the first `count` bytes of a regular file.
  func readPrefix(_ relative: String, count: Int) throws(FileSystemError) -> Read {
    let opened = try withRegularFile(relative) { (descriptor, size) throws(FileSystemError) in
      Read.bytes(try fileSystem.read(descriptor, count: Int(min(size, Int64(count))), at: 0))
    }
    return Self.read(opened)
  }

  private static func read(_ opened: Opened<Read>) -> Read {
    switch opened {
    case .opened(let read): read
    case .missing: .missing
    case .notRegular(let path, let kind): .notRegular(path: path, kind: kind)
    }
  }

  /// Opens `relative` as a regular file (refusing links, FIFOs and folders without waiting)
  /// and runs `body` with the descriptor and the size `fstat` reports.
  func withRegularFile<T>(
    _ relative: String, _ body: (FileDescriptor, Int64) throws(FileSystemError) -> T
  ) throws(FileSystemError) -> Opened<T> {
    if let (culprit, kind) = try checkFolders(of: relative) {
      guard let kind else { return .missing }
      return .notRegular(path: culprit, kind: kind)
    }
    let descriptor: FileDescriptor
    do {
      descriptor = try fileSystem.open(
        absolute(relative), .readOnly, options: [.noFollow, .nonBlocking])
    } catch {
      switch error.code {
      case ENOENT: return .missing
      case ELOOP: return .notRegular(path: relative, kind: .symbolicLink)
      case ENXIO, ENODEV, EISDIR: return .notRegular(path: relative, kind: .other)
      default: throw error.named(relative)
      }
    }
    defer { fileSystem.close(descriptor) }
    let identity: FileIdentity
    do {
      identity = try fileSystem.identity(of: descriptor)
    } catch {
      throw error.named(relative)
    }
    guard identity.kind == .regular else {
      return .notRegular(path: relative, kind: identity.kind)
    }
    do {
      return .opened(try body(descriptor, max(0, identity.size)))
    } catch {
      throw error.named(relative)
    }
  }

  /// The names in a folder, if it is a real folder (not a link to one).
  func list(_ relative: String) throws(FileSystemError) -> Listing {
    if let (culprit, kind) = try checkFolders(of: relative + "/x") {
      guard let kind else { return .missing }
      return .notAFolder(path: culprit, kind: kind)
    }
    do {
      return .names(try fileSystem.contentsOfDirectory(absolute(relative)))
    } catch {
      if error.code == ENOENT { return .missing }
      throw error.named(relative)
    }
  }

  /// Creates the folders of `relative` (below the root) one by one, checking each is a real
  /// folder, never a link.
  ///
  /// - Returns: The first entry on the way that is not a folder, or `nil` when all are.
  func makeFolders(_ relative: String) throws(FileSystemError) -> (String, FileKind)? {
    var path = ""
    for part in relative.split(separator: "/") {
      path += path.isEmpty ? String(part) : "/" + part
      var found = try kind(of: path)
      if found == nil {
        // mkdir never follows a link at the last component: a link planted here makes it
        // fail with EEXIST, and the check below sees the link.
        try fileSystem.makeDirectory(absolute(path))
        found = try kind(of: path)
      }
      guard let found, found == .directory else { return (path, found ?? .other) }
    }
    return nil
  }
}

extension FileSystemError {
  /// The same failure, naming the file by its place in the shared folder instead of by a
  /// descriptor number.
  func named(_ relative: String) -> FileSystemError {
    FileSystemError(operation: operation, path: relative, code: code, reason: reason)
  }
}

extension FileKind {
  /// What a person calls this kind of entry.
  var noun: String {
    switch self {
    case .regular: "file"
    case .directory: "folder"
    case .symbolicLink: "symbolic link"
    case .other: "special file (a FIFO, socket or device)"
    }
  }
}
