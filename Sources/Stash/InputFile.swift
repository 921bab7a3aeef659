import JSONLines
import StashFiles

/// A file a person named on the command line (a photo, an export to import), read whole.
///
/// Only a regular file is read. It is opened without blocking, so a FIFO (which would wait
/// forever for a writer) or a device such as `/dev/zero` (which reports no size and never
/// ends) is refused at once instead of hanging the command or storing nonsense.
enum InputFile {
  /// Reads the whole regular file at `path`, refusing one larger than `maximumBytes` before
  /// reading any of it (a sparse file can claim a terabyte).
  ///
  /// - Returns: Its bytes.
  /// - Throws: Why it cannot be read, for a message: the system's reason, or what it is
  ///   instead of a file.
  static func read(
    _ path: String, fileSystem: any FileSystem, maximumBytes: Int64
  ) throws(Problem) -> [UInt8] {
    let descriptor: FileDescriptor
    let identity: FileIdentity
    do throws(FileSystemError) {
      descriptor = try fileSystem.open(path, .readOnly, options: .nonBlocking)
    } catch {
      throw Problem(error.reason)
    }
    defer { fileSystem.close(descriptor) }
    do throws(FileSystemError) {
      identity = try fileSystem.identity(of: descriptor)
    } catch {
      throw Problem(error.reason)
    }
    switch identity.kind {
    case .regular: break
    case .directory: throw Problem("it is a folder, not a file")
    case .symbolicLink, .other:
      throw Problem("it is not a regular file (a FIFO, a socket or a device)")
    }
    guard identity.size <= maximumBytes else {
      throw Problem(
        "it is \(identity.size >> 20) MiB, more than the \(maximumBytes >> 20) MiB",
        size: identity.size)
    }
    do throws(FileSystemError) {
      return try fileSystem.read(descriptor, count: Int(identity.size), at: 0)
    } catch {
      throw Problem(error.reason)
    }
  }

  /// Why a file cannot be read, in a few words for a message.
  struct Problem: Error {
    let reason: String
    /// The file's size, when it is refused for being too large.
    let tooLarge: Int64?

    init(_ reason: String, size: Int64? = nil) {
      self.reason = reason
      self.tooLarge = size
    }
  }
}
