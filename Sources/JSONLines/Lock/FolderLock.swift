import Foundation
public import StashFiles
import Synchronization

/// The advisory lock on a device folder's `lock` file, held by anything writing the folder.
///
/// Across processes it is an exclusive `flock`, so two `stash` commands never lose each
/// other's updates: the second waits (up to ``timeout``) and then fails with
/// ``LogError/busy(_:)``. Within one process it is reentrant: the reconciler holds it around
/// a pass while each store takes it again for its own write.
public final class FolderLock: Sendable {
  /// The lock file's path (`<folder>/lock`).
  public let path: String
  /// How long to wait for another process before giving up, in seconds.
  public let timeout: Double
  private let fileSystem: any FileSystem
  /// Serializes this process's threads and lets the holder re-enter.
  private let inProcess = NSRecursiveLock()
  /// How deep the holder is and the descriptor holding the `flock`; changed only while
  /// `inProcess` is held.
  private let held = Mutex<(depth: Int, descriptor: FileDescriptor?)>((0, nil))

  /// The lock of the folder at `folder`.
  ///
  /// - Parameters:
  ///   - folder: The device folder; `lock` is created in it (0600) on first use.
  ///   - timeout: How long to wait for another process holding it, in seconds.
  ///   - fileSystem: The file-system seam.
  public init(
    folder: String, timeout: Double = 3, fileSystem: any FileSystem = POSIXFileSystem()
  ) {
    self.path = folder + "/lock"
    self.timeout = timeout
    self.fileSystem = fileSystem
  }

  /// Proof of holding the lock, to hand back to ``release(_:)``.
  public struct Held: Sendable {
    fileprivate init() {}
  }

  /// Takes the lock, waiting up to ``timeout`` for another process.
  ///
  /// Reentrant within this process: the holder may take it again (and must release as many
  /// times). Other threads of this process wait.
  ///
  /// - Returns: The proof of holding it.
  /// - Throws: ``LogError/busy(_:)`` when another process holds it past the timeout,
  ///   ``LogError/io(_:)`` when the lock file cannot be opened or locked.
  public func acquire() throws(LogError) -> Held {
    inProcess.lock()
    if held.withLock({ $0.depth }) == 0 {
      do {
        let descriptor = try takeFileLock()
        held.withLock { $0.descriptor = descriptor }
      } catch {
        inProcess.unlock()
        throw error
      }
    }
    held.withLock { $0.depth += 1 }
    return Held()
  }

  /// Releases the lock taken with ``acquire()``.
  public func release(_ proof: Held) {
    let released: FileDescriptor? = held.withLock { state in
      state.depth -= 1
      guard state.depth == 0 else { return nil }
      defer { state.descriptor = nil }
      return state.descriptor
    }
    if let released {
      fileSystem.unlock(released)
      fileSystem.close(released)
    }
    inProcess.unlock()
  }

  /// Runs `body` while holding the lock.
  ///
  /// - Parameter body: The work to do under the lock.
  /// - Returns: What `body` returns.
  /// - Throws: What ``acquire()`` throws, or what `body` throws.
  public func withLock<T>(_ body: () throws(LogError) -> T) throws(LogError) -> T {
    let proof = try acquire()
    defer { release(proof) }
    return try body()
  }

  /// Whether this process holds the lock right now (on any thread).
  public var isHeld: Bool { held.withLock { $0.depth > 0 } }

  private func takeFileLock() throws(LogError) -> FileDescriptor {
    let descriptor: FileDescriptor
    do {
      try fileSystem.makeDirectory(parentPath(of: path))
      descriptor = try fileSystem.open(path, .readWriteCreate)
    } catch {
      throw .io(error)
    }
    let deadline = Date().addingTimeInterval(timeout)
    var pause = 0.001
    while true {
      do {
        if try fileSystem.tryLock(descriptor) { return descriptor }
      } catch {
        fileSystem.close(descriptor)
        throw .io(error)
      }
      guard Date() < deadline else {
        fileSystem.close(descriptor)
        throw .busy(path)
      }
      Thread.sleep(forTimeInterval: pause)
      pause = min(pause * 2, 0.02)
    }
  }
}
