public import JSONLines
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real file system, with failures injected on cue: the seam tests use to prove that a
/// failed save leaves nothing half-done.
///
/// ```swift
/// let files = FaultInjectingFileSystem()
/// files.inject(.write(keepingBytes: 10))   // the next write stores 10 bytes, then fails
/// ```
public final class FaultInjectingFileSystem: FileSystem {
  /// A failure to inject into the next matching call.
  public enum Fault: Sendable, Equatable {
    /// The next write stores only its first `keepingBytes` bytes, then fails with EIO.
    case write(keepingBytes: Int)
    /// The next fsync fails with EIO.
    case synchronize
    /// The next rename fails with EIO (nothing is renamed).
    case rename
    /// The next truncate fails with EIO.
    case truncate
    /// The next write to a file whose path ends in `suffix` fails (nothing is written).
    case writeTo(suffix: String)
    /// Every open of a path ending in `suffix` fails with EACCES (permission denied), for as
    /// long as the fault stays injected (tests run as root, where `chmod` cannot deny).
    case denyOpen(suffix: String)
  }

  private let base = POSIXFileSystem()
  /// Faults waiting to fire, each with how many matching calls to let through first.
  private let pending = Mutex<[(fault: Fault, skip: Int)]>([])
  private let counts = Mutex<[String: Int]>([:])
  /// The path each open descriptor was opened with, for faults aimed at one file.
  private let paths = Mutex<[Int32: String]>([:])

  /// A file system that behaves like the real one until told otherwise.
  public init() {}

  /// Makes a later matching call fail: the first `skip` matching calls go through.
  public func inject(_ fault: Fault, afterSkipping skip: Int = 0) {
    pending.withLock { $0.append((fault, skip)) }
  }

  /// Whether every injected one-shot fault has fired.
  public var allFaultsFired: Bool {
    pending.withLock { faults in
      faults.allSatisfy { if case .denyOpen = $0.fault { true } else { false } }
    }
  }

  /// Removes every injected fault.
  public func clearFaults() { pending.withLock { $0.removeAll() } }

  /// How many calls of an operation (`"write"`, `"fsync"`, `"rename"`, ...) were made.
  public func count(_ operation: String) -> Int { counts.withLock { $0[operation, default: 0] } }

  private func take(_ match: (Fault) -> Bool, _ operation: String) -> Fault? {
    counts.withLock { $0[operation, default: 0] += 1 }
    return pending.withLock { faults in
      guard let index = faults.firstIndex(where: { match($0.fault) }) else { return nil }
      if faults[index].skip > 0 {
        faults[index].skip -= 1
        return nil
      }
      return faults.remove(at: index).fault
    }
  }

  private func injected(_ operation: String) -> FileSystemError {
    FileSystemError(
      operation: operation, path: "(injected)", code: EIO, reason: "Input/output error (injected)")
  }

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    let denied = pending.withLock { faults in
      faults.contains { entry in
        if case .denyOpen(let suffix) = entry.fault { path.hasSuffix(suffix) } else { false }
      }
    }
    if denied {
      throw FileSystemError(
        operation: "open", path: path, code: EACCES, reason: "Permission denied (injected)")
    }
    let descriptor = try base.open(path, mode, options: options)
    paths.withLock { $0[descriptor.rawValue] = path }
    return descriptor
  }

  public func close(_ file: FileDescriptor) {
    paths.withLock { $0[file.rawValue] = nil }
    base.close(file)
  }

  public func read(
    _ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) -> Int {
    try base.read(file, into: buffer, at: offset)
  }

  public func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    let path = paths.withLock { $0[file.rawValue] } ?? ""
    let fault = take(
      { fault in
        switch fault {
        case .write: true
        case .writeTo(let suffix): path.hasSuffix(suffix)
        default: false
        }
      }, "write")
    if case .writeTo? = fault { throw injected("write") }
    guard case .write(let keeping)? = fault else {
      return try base.write(file, bytes, at: offset)
    }
    let kept = min(keeping, bytes.count)
    if kept > 0 {
      try base.write(file, UnsafeRawBufferPointer(rebasing: bytes[0..<kept]), at: offset)
    }
    throw injected("write")
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    if take({ $0 == .synchronize }, "fsync") != nil { throw injected("fsync") }
    try base.synchronize(file)
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    if take({ $0 == .truncate }, "truncate") != nil { throw injected("truncate") }
    try base.truncate(file, to: size)
  }

  public func identity(of file: FileDescriptor) throws(FileSystemError) -> FileIdentity {
    try base.identity(of: file)
  }

  public func identity(
    atPath path: String, followingLinks: Bool
  ) throws(FileSystemError) -> FileIdentity? {
    try base.identity(atPath: path, followingLinks: followingLinks)
  }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    if take({ $0 == .rename }, "rename") != nil { throw injected("rename") }
    try base.rename(source, to: destination)
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    try base.link(source, to: destination)
  }

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    counts.withLock { $0["fsync folder", default: 0] += 1 }
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
