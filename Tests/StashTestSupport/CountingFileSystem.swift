public import StashFiles
import Synchronization

/// A file system that counts the reads of each file it opened, and the files renamed over
/// each path (every atomic write ends with one).
public final class CountingFileSystem: FileSystem {
  /// A counter over the real file system.
  public init() {}

  private let base = POSIXFileSystem()
  private let state = Mutex<
    (paths: [Int32: String], reads: [String: (calls: Int, bytes: Int)], renames: [String: Int])
  >(([:], [:], [:]))

  /// Forgets the reads and renames counted so far.
  public func reset() {
    state.withLock {
      $0.reads = [:]
      $0.renames = [:]
    }
  }

  /// How many files were renamed over a path ending with `suffix`, since the last reset.
  public func renames(toFileEndingWith suffix: String) -> Int {
    state.withLock { $0.renames.filter { $0.key.hasSuffix(suffix) }.values.reduce(0, +) }
  }

  /// The reads of the files whose path ends with `suffix`, since the last reset.
  public func reads(ofFileEndingWith suffix: String) -> (calls: Int, bytes: Int) {
    state.withLock { state in
      state.reads.filter { $0.key.hasSuffix(suffix) }.values.reduce((0, 0)) {
        ($0.0 + $1.calls, $0.1 + $1.bytes)
      }
    }
  }

  public func open(_ path: String, _ mode: OpenMode, options: OpenOptions) throws(FileSystemError)
    -> FileDescriptor
  {
    let file = try base.open(path, mode, options: options)
    state.withLock { $0.paths[file.rawValue] = path }
    return file
  }
  public func close(_ file: FileDescriptor) {
    state.withLock { _ = $0.paths.removeValue(forKey: file.rawValue) }
    base.close(file)
  }
  public func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  )
    throws(FileSystemError) -> Int
  {
    let count = try base.read(file, into: buffer, at: offset)
    state.withLock { state in
      guard let path = state.paths[file.rawValue] else { return }
      state.reads[path, default: (0, 0)].calls += 1
      state.reads[path, default: (0, 0)].bytes += count
    }
    return count
  }
  public func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64)
    throws(FileSystemError)
  { try base.write(file, bytes, at: offset) }
  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    try base.synchronize(file)
  }
  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    try base.truncate(file, to: size)
  }
  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    try base.identity(of: file)
  }
  public func identity(atPath path: String, followingLinks: Bool) throws(FileSystemError)
    -> FileIdentity?
  { try base.identity(atPath: path, followingLinks: followingLinks) }
  public func birthTime(atPath path: String) -> BirthTime? { base.birthTime(atPath: path) }
  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    try base.rename(source, to: destination)
    state.withLock { $0.renames[destination, default: 0] += 1 }
  }
  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    try base.link(source, to: destination)
  }
  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    try base.synchronizeDirectory(path)
  }
  public func makeDirectory(_ path: String) throws(FileSystemError) { try base.makeDirectory(path) }
  public func removeFile(_ path: String) throws(FileSystemError) { try base.removeFile(path) }
  public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
    try base.contentsOfDirectory(path)
  }
  public func tryLock(_ file: FileDescriptor) throws(FileSystemError) -> Bool {
    try base.tryLock(file)
  }
  public func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
