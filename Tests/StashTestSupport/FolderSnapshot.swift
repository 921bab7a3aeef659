#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every entry under a folder, byte for byte: files with their bytes and permissions, folders,
/// symbolic links with their targets, and FIFOs.
///
/// A refused command must change nothing; comparing a snapshot taken before with one taken
/// after proves it, including files it should never have created anywhere in the tree. Names
/// are kept as bytes, so a name that is not UTF-8 is told apart from its repaired spelling.
/// Links are recorded, never followed.
public struct FolderSnapshot: Equatable, Sendable {
  /// One entry.
  public enum Entry: Equatable, Sendable {
    /// A folder and its permission bits.
    case folder(permissions: UInt32)
    /// A regular file, its permission bits and its bytes.
    case file(permissions: UInt32, bytes: [UInt8])
    /// A symbolic link and its target.
    case link(target: [UInt8])
    /// A FIFO and its permission bits.
    case fifo(permissions: UInt32)
    /// Anything else (a socket, a device), by its mode.
    case other(mode: UInt32)
  }

  /// The entries by their path relative to the root, as bytes (`a/b`).
  public private(set) var entries: [[UInt8]: Entry] = [:]

  /// The tree under `root` as it is now (an empty snapshot when `root` does not exist).
  public init(of root: String) {
    collect(Array(root.utf8), relative: [])
  }

  /// The relative paths (as text, invalid bytes repaired) whose entries differ, sorted.
  public func differences(from other: FolderSnapshot) -> [String] {
    let keys = Set(entries.keys).union(other.entries.keys)
    return keys.filter { entries[$0] != other.entries[$0] }
      .map { String(decoding: $0, as: UTF8.self) }.sorted()
  }

  /// The relative paths that differ from `other`, as bytes.
  public func changedPaths(from other: FolderSnapshot) -> [[UInt8]] {
    Set(entries.keys).union(other.entries.keys).filter { entries[$0] != other.entries[$0] }
      .sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// Makes the tree under `root` exactly this snapshot again: removes everything there, then
  /// recreates every entry with its bytes and permissions.
  ///
  /// - Returns: A description of what could not be restored (empty when all went well).
  @discardableResult
  public func restore(at root: String) -> [String] {
    var problems: [String] = []
    let prefix = Array((root + "/").utf8)
    for name in Self.rawNames(in: Array(root.utf8)) {
      Self.remove(prefix + name, problems: &problems)
    }
    for (path, entry) in entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) })
    where !Self.create(prefix + path, entry) {
      problems.append("cannot restore '\(String(decoding: path, as: UTF8.self))'")
    }
    return problems
  }

  // MARK: - Reading

  private mutating func collect(_ folder: [UInt8], relative: [UInt8]) {
    for name in Self.rawNames(in: folder) {
      let path = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
      let full = folder + [UInt8(ascii: "/")] + name
      var info = stat()
      guard Self.withPath(full, { lstat($0, &info) }) == 0 else { continue }
      let permissions = UInt32(info.st_mode) & 0o7777
      switch UInt32(info.st_mode) & UInt32(S_IFMT) {
      case UInt32(S_IFDIR):
        entries[path] = .folder(permissions: permissions)
        collect(full, relative: path)
      case UInt32(S_IFREG):
        entries[path] = .file(permissions: permissions, bytes: Self.fileBytes(full))
      case UInt32(S_IFLNK):
        entries[path] = .link(target: Self.linkTarget(full))
      case UInt32(S_IFIFO):
        entries[path] = .fifo(permissions: permissions)
      default:
        entries[path] = .other(mode: UInt32(info.st_mode))
      }
    }
  }

  private static func rawNames(in folder: [UInt8]) -> [[UInt8]] {
    guard let directory = withPath(folder, { opendir($0) }) else { return [] }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        Array(raw.prefix { $0 != 0 })
      }
      if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
    }
    return names
  }

  private static func fileBytes(_ path: [UInt8]) -> [UInt8] {
    let file = withPath(path) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) }
    guard file >= 0 else { return [] }
    defer { close(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return bytes
  }

  private static func linkTarget(_ path: [UInt8]) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = withPath(path) { pointer in
      buffer.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { readlink(pointer, $0.baseAddress!, $0.count) }
      }
    }
    return count > 0 ? Array(buffer[..<count]) : []
  }

  // MARK: - Writing

  /// Removes a path and, for a folder, everything in it, never following a link.
  private static func remove(_ path: [UInt8], problems: inout [String]) {
    var info = stat()
    guard withPath(path, { lstat($0, &info) }) == 0 else { return }
    if UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR) {
      _ = withPath(path) { chmod($0, 0o700) }
      for name in rawNames(in: path) {
        remove(path + [UInt8(ascii: "/")] + name, problems: &problems)
      }
      if withPath(path, { rmdir($0) }) != 0 {
        problems.append("cannot remove '\(String(decoding: path, as: UTF8.self))'")
      }
    } else if withPath(path, { unlink($0) }) != 0 {
      problems.append("cannot remove '\(String(decoding: path, as: UTF8.self))'")
    }
  }

  private static func create(_ path: [UInt8], _ entry: Entry) -> Bool {
    switch entry {
    case .folder(let permissions):
      return withPath(path) { mkdir($0, 0o700) == 0 && chmod($0, mode_t(permissions)) == 0 }
    case .file(let permissions, let bytes):
      let file = withPath(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
      guard file >= 0 else { return false }
      defer { close(file) }
      let written = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
      return written == bytes.count && fchmod(file, mode_t(permissions)) == 0
    case .link(let target):
      return withPath(target) { target in withPath(path) { symlink(target, $0) == 0 } }
    case .fifo(let permissions):
      return withPath(path) { mkfifo($0, 0o600) == 0 && chmod($0, mode_t(permissions)) == 0 }
    case .other:
      return false
    }
  }

  private static func withPath<T>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    (path + [0]).withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
  }
}
