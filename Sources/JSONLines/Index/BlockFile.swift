import StashModel
import Synchronization

/// A derived file read a block at a time: a fixed part (a magic, a format version, the head's
/// length and CRC-32), a head, and a body cut into blocks of 4 KiB, each with a CRC-32 that
/// the head lists and that is checked each time the block is read.
///
/// Layout (little-endian): the magic, the version (`UInt32`), the head's length (`UInt64`) and
/// its CRC-32 (`UInt32`); the head: the body's length (`UInt64`), the number of blocks
/// (`UInt64`), each block's CRC-32 (`UInt32`), then the caller's head bytes; then the body.
/// The mirror's index uses it; it is generic so that any derived file can.
public enum BlockFile {
  /// The body's block size: the unit a lookup reads and checks.
  public static let blockSize = CheckedBlocks.blockSize

  /// The length of the fixed part for `magic`.
  public static func fixedLength(magic: [UInt8]) -> Int { magic.count + 4 + 8 + 4 }

  /// The bytes of a file with this magic, version, head and body.
  public static func encode(
    magic: [UInt8], version: UInt32, head: [UInt8], body: [UInt8]
  ) -> [UInt8] {
    var whole = ByteWriter()
    whole.integer(UInt64(body.count))
    let blocks = (body.count + blockSize - 1) / blockSize
    whole.integer(UInt64(blocks))
    body.withUnsafeBytes { raw in
      var start = 0
      while start < raw.count {
        let end = min(start + blockSize, raw.count)
        whole.integer(CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[start..<end])))
        start = end
      }
    }
    whole.output += head
    var out = ByteWriter()
    out.output.reserveCapacity(fixedLength(magic: magic) + whole.output.count + body.count)
    out.output = magic
    out.integer(version)
    out.integer(UInt64(whole.output.count))
    out.integer(CRC32.checksum(whole.output))
    out.output += whole.output
    out.output += body
    return out.output
  }
}

/// Reads a ``BlockFile`` a block at a time, checking each block's CRC-32 as it is read.
///
/// The file stays open while the reader lives, so a rewrite by another process (a new file
/// renamed over it) cannot mix two files in one reader.
public final class BlockFileReader {
  /// The caller's part of the head, checked.
  public let head: [UInt8]
  /// The body's length.
  public let bodyLength: Int
  /// The head's CRC-32: two readers with equal ones read the same head.
  public let headChecksum: UInt32
  private let body: CheckedBlocks

  /// Why a file could not be read as a block file.
  public enum Failure: Error, Hashable, Sendable {
    /// There is no file (or it cannot be opened).
    case missing
    /// Another magic or version.
    case otherVersion
    /// The head is damaged, or does not fit the file.
    case damagedHead
  }

  /// Opens the file at `path` and checks its fixed part and head.
  ///
  /// - Throws: ``Failure``.
  public init(
    path: String, magic: [UInt8], version: UInt32, fileSystem: any FileSystem,
    maximumHeadLength: Int = 1 << 28
  ) throws(Failure) {
    guard let descriptor = try? fileSystem.open(path, .readOnly, options: .nonBlocking) else {
      throw .missing
    }
    var owned = false
    defer { if !owned { fileSystem.close(descriptor) } }
    let fixedLength = BlockFile.fixedLength(magic: magic)
    guard let identity = try? fileSystem.identity(of: descriptor), identity.kind == .regular
    else { throw .missing }
    guard let fixed = CheckedBlocks.read(descriptor, fixedLength, at: 0, fileSystem) else {
      throw .damagedHead
    }
    let parsed: (UInt32, UInt64, UInt32)? = fixed.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard reader.take(magic.count).map(Array.init) == magic,
        let found: UInt32 = reader.integer(), let length: UInt64 = reader.integer(),
        let checksum: UInt32 = reader.integer()
      else { return nil }
      return (found, length, checksum)
    }
    guard let (found, length, checksum) = parsed else { throw .otherVersion }
    guard found == version else { throw .otherVersion }
    guard length <= UInt64(maximumHeadLength),
      length <= UInt64(identity.size) - UInt64(min(identity.size, Int64(fixedLength))),
      let whole = CheckedBlocks.read(descriptor, Int(length), at: Int64(fixedLength), fileSystem),
      CRC32.checksum(whole) == checksum
    else { throw .damagedHead }
    let split: (Int, [UInt32], [UInt8])? = whole.withUnsafeBytes { raw in
      var reader = RawReader(raw)
      guard let body: UInt64 = reader.integer(), let count: UInt64 = reader.integer(),
        body <= UInt64(identity.size), count <= UInt64(raw.count / 4)
      else { return nil }
      var sums = [UInt32]()
      sums.reserveCapacity(Int(count))
      for _ in 0..<count {
        guard let sum: UInt32 = reader.integer() else { return nil }
        sums.append(sum)
      }
      let rest = reader.take(raw.count - reader.position).map(Array.init) ?? []
      return (Int(body), sums, rest)
    }
    guard let (body, sums, head) = split,
      sums.count == (body + BlockFile.blockSize - 1) / BlockFile.blockSize,
      Int64(fixedLength) + Int64(length) + Int64(body) == identity.size
    else { throw .damagedHead }
    self.head = head
    self.bodyLength = body
    self.headChecksum = checksum
    self.body = CheckedBlocks(
      descriptor: descriptor, fileSystem: fileSystem,
      bodyStart: Int64(fixedLength) + Int64(length), bodyLength: body, checksums: sums)
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
}

extension LogStore {
  /// Whether a caller holds compaction off (``withRollback(_:)``): what was saved may still
  /// be undone, so a derived file must not describe it yet.
  public var mayRollBack: Bool { state.withLock { $0.compactionHolds > 0 } }
}
