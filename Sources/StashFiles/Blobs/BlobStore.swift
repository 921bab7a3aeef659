public import StashBase
public import StashModel

/// Immutable bytes kept beside the stores, named by their SHA-256: `blobs/<sha256>`.
///
/// A record holds only a ``BlobRef`` (digest and size), so a photo is never inlined in a store
/// line. A blob is written to a temporary name, synchronized, and renamed into place, so its
/// name always matches complete bytes; reading verifies the digest and size, so a missing or
/// corrupt blob is reported, never silently accepted. Blobs are never removed.
public struct BlobStore: Sendable {
  /// The largest photo a blob store takes: 256 MiB. A larger file is refused before any of it
  /// is read (a sparse file can claim any size).
  public static let maximumBlobBytes: Int64 = 256 << 20

  /// The `blobs` folder.
  public let folder: String
  private let fileSystem: any FileSystem

  /// The blob folder `blobs` inside `deviceFolder`.
  public init(deviceFolder: String, fileSystem: any FileSystem = POSIXFileSystem()) {
    self.folder = deviceFolder + "/blobs"
    self.fileSystem = fileSystem
  }

  /// The blob store in `folder` itself (for the transport's shared `blobs` folder).
  public init(folder: String, fileSystem: any FileSystem = POSIXFileSystem()) {
    self.folder = folder
    self.fileSystem = fileSystem
  }

  /// Where the blob with this digest lives.
  public func path(for digest: SHA256Digest) -> String { folder + "/" + digest.hex }

  /// Stores bytes (or finds them already stored) and returns their reference.
  ///
  /// - Throws: ``BlobError/io(_:)`` when the folder or file cannot be written.
  @discardableResult
  public func store(_ bytes: [UInt8]) throws(BlobError) -> BlobRef {
    let ref = BlobRef(of: bytes)
    if case .present = check(ref) { return ref }
    do throws(FileSystemError) {
      try fileSystem.makeDirectory(folder)
      let temporary = TemporaryName.path(
        for: path(for: ref.digest), unique: RecordID.make().rawValue)
      let descriptor = try fileSystem.open(temporary, .createNew)
      defer { fileSystem.close(descriptor) }
      do throws(FileSystemError) {
        try fileSystem.write(descriptor, bytes, at: 0)
        try fileSystem.synchronize(descriptor)
        try fileSystem.rename(temporary, to: path(for: ref.digest))
        try fileSystem.synchronizeDirectory(folder)
      } catch {
        try? fileSystem.removeFile(temporary)
        throw error
      }
    } catch {
      throw .io(error)
    }
    return ref
  }

  /// Copies a file into the store.
  ///
  /// - Parameter source: The file to copy (for example a photo a person named).
  /// - Returns: The reference to the stored bytes.
  /// - Throws: ``BlobError/unreadable(_:_:)`` when the source cannot be read,
  ///   ``BlobError/tooLarge(_:size:)`` when it is larger than ``maximumBlobBytes``,
  ///   ``BlobError/io(_:)`` when the store cannot be written.
  @discardableResult
  public func store(contentsOf source: String) throws(BlobError) -> BlobRef {
    try store(try readWhole(source))
  }

  /// Copies a blob from another blob store (the transport's shared folder) after checking it.
  ///
  /// - Throws: ``BlobError/missing(_:)`` or ``BlobError/corrupt(_:_:)`` when the other copy is
  ///   absent or does not match its name; ``BlobError/io(_:)``.
  public func copy(_ ref: BlobRef, from other: BlobStore) throws(BlobError) {
    if case .present = check(ref) { return }
    try store(try other.read(ref))
  }

  /// Reads and verifies a blob.
  ///
  /// - Throws: ``BlobError/missing(_:)`` when there is no file, ``BlobError/corrupt(_:_:)`` when
  ///   its bytes do not match the reference.
  public func read(_ ref: BlobRef) throws(BlobError) -> [UInt8] {
    let bytes: [UInt8]
    do {
      bytes = try readWhole(path(for: ref.digest))
    } catch .unreadable(_, let error) where error.code == 2 {  // ENOENT
      throw .missing(ref)
    }
    guard Int64(bytes.count) == ref.size else {
      throw .corrupt(ref, "it holds \(bytes.count) bytes, not \(ref.size)")
    }
    guard SHA256.hash(bytes) == ref.digest else {
      throw .corrupt(ref, "its bytes do not match its name")
    }
    return bytes
  }

  /// Whether a blob is present and intact, without returning its bytes.
  public func check(_ ref: BlobRef) -> BlobStatus {
    do {
      _ = try read(ref)
      return .present
    } catch .missing {
      return .missing
    } catch .corrupt(_, let reason) {
      return .corrupt(reason)
    } catch {
      return .corrupt("\(error)")
    }
  }

  private func readWhole(_ path: String) throws(BlobError) -> [UInt8] {
    try readChecked(path).get()
  }

  private func readChecked(_ path: String) throws(BlobError) -> Result<[UInt8], BlobError> {
    do throws(FileSystemError) {
      let descriptor = try fileSystem.open(path, .readOnly)
      defer { fileSystem.close(descriptor) }
      let size = try fileSystem.identity(of: descriptor).size
      guard size <= Self.maximumBlobBytes else { return .failure(.tooLarge(path, size: size)) }
      return .success(try fileSystem.read(descriptor, count: Int(size), at: 0))
    } catch {
      throw .unreadable(path, error)
    }
  }
}

/// Whether a blob is there and intact.
public enum BlobStatus: Hashable, Sendable {
  case present
  case missing
  case corrupt(String)
}

/// Why a blob could not be stored or read.
public enum BlobError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No file has this blob's name.
  case missing(BlobRef)
  /// The file's bytes do not match its name or size.
  case corrupt(BlobRef, String)
  /// A file to copy in could not be read.
  case unreadable(String, FileSystemError)
  /// The blob folder could not be written.
  case io(FileSystemError)
  /// A file is larger than ``BlobStore/maximumBlobBytes``.
  case tooLarge(String, size: Int64)

  public var description: String {
    switch self {
    case .missing(let ref):
      "The photo '\(ref.digest.hex.prefix(12))' is missing from the blobs folder"
    case .corrupt(let ref, let reason):
      "The photo '\(ref.digest.hex.prefix(12))' is damaged: \(reason)"
    case .unreadable(let path, let error):
      "Cannot read '\(path)': \(error.reason)"
    case .io(let error):
      error.description
    case .tooLarge(let path, let size):
      "The file '\(path)' is \(size >> 20) MiB, more than the \(BlobStore.maximumBlobBytes >> 20) "
        + "MiB a photo may be; make it smaller"
    }
  }
}
