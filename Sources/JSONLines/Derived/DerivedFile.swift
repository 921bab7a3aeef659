import StashBase
public import StashFiles
import StashModel
import Synchronization

/// One kind of derived file: a file beside the stores that is computed from them (an index,
/// the sync state), never the truth, checked every time it is read, and ignored
/// and rebuilt when it fails a check.
///
/// Every kind shares one container, read a block at a time (Fixtures/README.md section 8 has
/// it byte by byte). All integers are little-endian.
///
/// ```
/// magic       the tag and a newline ("stash.local.index\n")
/// u32         the format version
/// u64         the head's length
/// u32         the head's CRC-32
/// head        u64 the body's length, u64 its number of 4 KiB blocks, u32 each block's CRC-32,
///             the source (what the file was derived from), then the kind's own head
/// body        the kind's body, each 4 KiB block checked against its CRC-32 when it is read
/// source      u8 1: a store: u16 length, its id, u8 0 or 1, the prefix of its log covered
///             u8 2: a fingerprint: u32 length, its bytes
/// ```
///
/// A file that is missing, empty, of another kind or version (older or newer: it is derived,
/// so a newer one is ignored rather than refused), damaged anywhere, or derived from another
/// store is ignored with the reason (``Ignored``), and the next write replaces it. Files are
/// written without fsync (``write(_:to:fileSystem:)``): a torn one fails its checks.
public struct DerivedFile: Hashable, Sendable {
  /// The tag: `stash.` and what the file is (`stash.local.index`).
  public let tag: String
  /// The newest (and only) format version this code reads and writes.
  public let version: UInt32

  /// A kind of derived file.
  public init(tag: String, version: UInt32) {
    self.tag = tag
    self.version = version
  }

  /// The body's block size: the unit a lookup reads and checks.
  public static let blockSize = CheckedBlocks.blockSize
  /// The magic the file starts with: the tag and a newline.
  public var magic: [UInt8] { Array((tag + "\n").utf8) }
  /// The length of the fixed part: the magic, the version, the head's length and CRC-32.
  public var fixedLength: Int { magic.count + 4 + 8 + 4 }

  /// What a derived file was derived from: it is used only for that.
  public enum Source: Hashable, Sendable {
    /// A store: its id and, when the file describes a known prefix of the store's log, that
    /// prefix (which must still describe the log).
    case store(id: String, prefix: LogPrefix?)
    /// Files fingerprinted (sizes, times, CRC-32s): the kind compares it with them afresh.
    case fingerprint([UInt8])
  }

  /// Why a derived file was ignored (`stash doctor` says it; the file is rebuilt).
  public enum Ignored: Error, Hashable, Sendable, CustomStringConvertible {
    /// There is no such file (or it is not a regular file).
    case missing
    /// The file is empty.
    case empty
    /// The file is not of this kind (another magic).
    case otherKind
    /// An older format version, written by an earlier release.
    case olderVersion(UInt32)
    /// A newer format version, written by a later release.
    case newerVersion(UInt32)
    /// The file is cut short, fails a CRC-32 or does not fit its head.
    case damaged
    /// It was derived from another store, or from another state of the files it fingerprints.
    case otherSource

    public var description: String {
      switch self {
      case .missing: "missing"
      case .empty: "empty"
      case .otherKind: "not a file of this kind"
      case .olderVersion(let version): "an older format (version \(version))"
      case .newerVersion(let version): "a newer format (version \(version))"
      case .damaged: "damaged"
      case .otherSource: "derived from another store"
      }
    }
  }

  /// The bytes of a file of this kind derived from `source`, with the kind's `head` and
  /// `body`.
  ///
  /// The body becomes the file's bytes in place: what goes before it is inserted at its
  /// start, so that a body with room for it (``prefixLength(bodyLength:source:head:)`` more
  /// than its length reserved) is never copied. A large store's index is tens of megabytes,
  /// and it was held three times over while it was written (issue 26, item 4).
  public func encode(source: Source, head: [UInt8], body: consuming [UInt8]) -> [UInt8] {
    var whole = ByteWriter()
    whole.integer(UInt64(body.count))
    let blocks = (body.count + Self.blockSize - 1) / Self.blockSize
    whole.integer(UInt64(blocks))
    body.withUnsafeBytes { raw in
      var start = 0
      while start < raw.count {
        let end = min(start + Self.blockSize, raw.count)
        whole.integer(CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[start..<end])))
        start = end
      }
    }
    whole.source(source)
    whole.output += head
    var prefix = ByteWriter()
    prefix.output.reserveCapacity(fixedLength + whole.output.count)
    prefix.output = magic
    prefix.integer(version)
    prefix.integer(UInt64(whole.output.count))
    prefix.integer(CRC32.checksum(whole.output))
    prefix.output += whole.output
    body.insert(contentsOf: prefix.output, at: 0)
    return body
  }

  /// At most how many bytes ``encode(source:head:body:)`` puts before a body of `bodyLength`
  /// bytes with this `head` (what a body built to be encoded reserves beyond its own length).
  public func prefixLength(bodyLength: Int, source: Source, head: Int) -> Int {
    var sourceBytes = ByteWriter()
    sourceBytes.source(source)
    let blocks = (bodyLength + Self.blockSize - 1) / Self.blockSize
    return fixedLength + 16 + blocks * 4 + sourceBytes.output.count + head
  }

  /// Writes `bytes` at `path` (a temporary file renamed over it, without fsync: a torn file
  /// fails its checks); a failure removes what is there, and is otherwise ignored, since the
  /// file is derived.
  ///
  /// - Returns: Whether the file was written.
  @discardableResult
  public static func write(_ bytes: [UInt8], to path: String, fileSystem: any FileSystem) -> Bool {
    if (try? fileSystem.writeFileAtomically(path, bytes, durable: false)) != nil { return true }
    try? fileSystem.removeFile(path)
    return false
  }

  /// The file at `path`, its fixed part and head checked (its body is checked a block at a
  /// time as it is read), or why it is ignored.
  ///
  /// - Parameter accepting: Whether the file's source is the one wanted (``Ignored/otherSource``
  ///   otherwise).
  public func read(
    at path: String, fileSystem: any FileSystem,
    accepting: (Source) -> Bool = { _ in true }
  ) -> Result<DerivedFileReader, Ignored> {
    do {
      return .success(
        try DerivedFileReader(
          path: path, kind: self, fileSystem: fileSystem, accepting: accepting))
    } catch {
      return .failure(error)
    }
  }

  /// The source, head and body of a whole file's bytes (as ``encode(source:head:body:)``
  /// makes them), every block checked unless `checkingBody` is `false` (bytes this process
  /// just encoded); or why they are ignored.
  public func decode(_ bytes: [UInt8], checkingBody: Bool = true) -> Result<
    (source: Source, head: [UInt8], headChecksum: UInt32, body: ArraySlice<UInt8>), Ignored
  > {
    let parsed = bytes.withUnsafeBytes { raw -> Result<Parsed, Ignored> in
      switch fixedPart(raw, size: Int64(raw.count)) {
      case .failure(let reason): return .failure(reason)
      case .success(let (length, checksum)):
        let whole = UnsafeRawBufferPointer(
          rebasing: raw[fixedLength..<(fixedLength + Int(length))])
        return parse(head: whole, checksum: checksum, size: Int64(raw.count))
      }
    }
    guard case .success(let found) = parsed else {
      if case .failure(let reason) = parsed { return .failure(reason) }
      return .failure(.damaged)
    }
    let body = bytes[(bytes.count - found.bodyLength)...]
    var start = body.startIndex
    for sum in found.checksums where checkingBody {
      let end = min(start + Self.blockSize, body.endIndex)
      guard CRC32.checksum(Array(body[start..<end])) == sum else { return .failure(.damaged) }
      start = end
    }
    return .success((found.source, found.head, found.checksum, body))
  }

  /// A checked head.
  struct Parsed {
    var bodyLength: Int
    var checksums: [UInt32]
    var source: Source
    var head: [UInt8]
    var checksum: UInt32
  }

  /// The head's length and CRC-32 from the fixed part at the start of `raw`, for a file of
  /// `size` bytes; or why the file is ignored.
  func fixedPart(_ raw: UnsafeRawBufferPointer, size: Int64) -> Result<(UInt64, UInt32), Ignored> {
    if size == 0 { return .failure(.empty) }
    var reader = RawReader(raw)
    guard let found = reader.take(min(magic.count, raw.count)) else { return .failure(.damaged) }
    guard found.hasBytes(magic) else {
      return magic.starts(with: found) ? .failure(.damaged) : .failure(.otherKind)
    }
    guard let version: UInt32 = reader.integer() else { return .failure(.damaged) }
    if version < self.version { return .failure(.olderVersion(version)) }
    if version > self.version { return .failure(.newerVersion(version)) }
    guard let length: UInt64 = reader.integer(), let checksum: UInt32 = reader.integer(),
      length <= UInt64(max(0, size - Int64(fixedLength))), length <= 1 << 28
    else { return .failure(.damaged) }
    return .success((length, checksum))
  }

  /// The head `raw` (checked against `checksum`) of a file of `size` bytes.
  func parse(head raw: UnsafeRawBufferPointer, checksum: UInt32, size: Int64) -> Result<
    Parsed, Ignored
  > {
    guard CRC32.checksum(raw) == checksum else { return .failure(.damaged) }
    var reader = RawReader(raw)
    guard let body: UInt64 = reader.integer(), let count: UInt64 = reader.integer(),
      body <= UInt64(size), count <= UInt64(raw.count / 4),
      count == (body + UInt64(Self.blockSize) - 1) / UInt64(Self.blockSize)
    else { return .failure(.damaged) }
    var sums = [UInt32]()
    sums.reserveCapacity(Int(count))
    for _ in 0..<count {
      guard let sum: UInt32 = reader.integer() else { return .failure(.damaged) }
      sums.append(sum)
    }
    guard let source = reader.source(),
      Int64(fixedLength) + Int64(raw.count) + Int64(body) == size
    else { return .failure(.damaged) }
    let head = reader.take(raw.count - reader.position).map(Array.init) ?? []
    return .success(
      Parsed(bodyLength: Int(body), checksums: sums, source: source, head: head, checksum: checksum)
    )
  }
}

/// A ``DerivedFile`` open for reading, its head checked, its body read a block at a time and
/// each block checked as it is read.
///
/// The file stays open while the reader lives, so a rewrite by another process (a new file
/// renamed over it) cannot mix two files in one reader.
public final class DerivedFileReader {
  /// What the file was derived from.
  public let source: DerivedFile.Source
  /// The kind's part of the head, checked.
  public let head: [UInt8]
  /// The body's length.
  public let bodyLength: Int
  /// The head's CRC-32: two readers with equal ones read the same head.
  public let headChecksum: UInt32
  private let body: CheckedBlocks

  init(
    path: String, kind: DerivedFile, fileSystem: any FileSystem,
    accepting: (DerivedFile.Source) -> Bool
  ) throws(DerivedFile.Ignored) {
    guard let descriptor = try? fileSystem.open(path, .readOnly, options: .nonBlocking) else {
      throw .missing
    }
    var owned = false
    defer { if !owned { fileSystem.close(descriptor) } }
    guard let identity = try? fileSystem.identity(of: descriptor), identity.kind == .regular
    else { throw .missing }
    let size = identity.size
    let start = CheckedBlocks.read(
      descriptor, min(kind.fixedLength, Int(size)), at: 0, fileSystem)
    guard let start else { throw .damaged }
    let fixed = start.withUnsafeBytes { kind.fixedPart($0, size: size) }
    let (length, checksum) = try fixed.get()
    guard
      let whole = CheckedBlocks.read(
        descriptor, Int(length), at: Int64(kind.fixedLength), fileSystem)
    else { throw .damaged }
    let parsed = try whole.withUnsafeBytes { kind.parse(head: $0, checksum: checksum, size: size) }
      .get()
    guard accepting(parsed.source) else { throw .otherSource }
    source = parsed.source
    head = parsed.head
    bodyLength = parsed.bodyLength
    headChecksum = checksum
    body = CheckedBlocks(
      descriptor: descriptor, fileSystem: fileSystem,
      bodyStart: Int64(kind.fixedLength) + Int64(length), bodyLength: parsed.bodyLength,
      checksums: parsed.checksums)
    owned = true
  }

  /// `count` bytes of the body at `offset`; `nil` past its end or when a block fails its
  /// check.
  public func bytes(at offset: Int, count: Int) -> [UInt8]? {
    body.bytes(at: offset, count: count)
  }

  /// A little-endian integer of the body at `offset`; `nil` past its end or when a block
  /// fails its check.
  public func integer<T: FixedWidthInteger>(at offset: Int) -> T? { body.integer(at: offset) }

  /// The whole body, every block checked; `nil` when one fails its check.
  public func wholeBody() -> [UInt8]? { bytes(at: 0, count: bodyLength) }
}

extension ByteWriter {
  /// Appends a derived file's source.
  mutating func source(_ source: DerivedFile.Source) {
    switch source {
    case .store(let id, let prefix):
      integer(UInt8(1))
      bytes(Array(id.utf8), width: 2)
      integer(UInt8(prefix == nil ? 0 : 1))
      if let prefix { self.prefix(prefix) }
    case .fingerprint(let bytes):
      integer(UInt8(2))
      integer(UInt32(bytes.count))
      output += bytes
    }
  }
}

extension RawReader {
  /// The next derived file's source; `nil` when it does not fit.
  mutating func source() -> DerivedFile.Source? {
    switch integer() as UInt8? {
    case 1?:
      guard let id = bytes(width: 2), let text = String(validating: id, as: UTF8.self),
        let has: UInt8 = integer(), has <= 1
      else { return nil }
      if has == 0 { return .store(id: text, prefix: nil) }
      guard let prefix = prefix() else { return nil }
      return .store(id: text, prefix: prefix)
    case 2?:
      guard let count: UInt32 = integer(), let bytes = take(Int(count)) else { return nil }
      return .fingerprint(Array(bytes))
    default:
      return nil
    }
  }
}

extension LogStore {
  /// Whether a caller holds compaction off (``withRollback(_:)``): what was saved may still
  /// be undone, so a derived file must not describe it yet.
  public var mayRollBack: Bool { state.withLock { $0.compactionHolds > 0 } }
}
