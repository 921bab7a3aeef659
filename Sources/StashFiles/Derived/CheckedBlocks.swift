import StashBase
import StashModel

/// The body of a derived file read a block of 4 KiB at a time, each block checked against its
/// CRC-32 as it is read and kept for the next read (at most 256 blocks): what the local
/// store's index (`IndexReader`) and every ``DerivedFileReader`` read through.
///
/// It owns the descriptor and closes it when it goes, so a rewrite of the file by another
/// process (a new file renamed over it) cannot mix two files in one reader.
public final class CheckedBlocks {
  /// The body's block size.
  public static let blockSize = 4096
  /// The body's length.
  public let bodyLength: Int
  private let descriptor: FileDescriptor
  private let fileSystem: any FileSystem
  private let bodyStart: Int64
  private let checksums: [UInt32]
  private var blocks = [Int: [UInt8]]()

  /// The body of the file open at `descriptor`: `bodyLength` bytes from `bodyStart`, one
  /// CRC-32 per block in `checksums`. The reader owns the descriptor from now on.
  public init(
    descriptor: FileDescriptor, fileSystem: any FileSystem, bodyStart: Int64, bodyLength: Int,
    checksums: [UInt32]
  ) {
    self.descriptor = descriptor
    self.fileSystem = fileSystem
    self.bodyStart = bodyStart
    self.bodyLength = bodyLength
    self.checksums = checksums
  }

  deinit { fileSystem.close(descriptor) }

  /// Exactly `count` bytes at `offset` of the file open at `descriptor`; `nil` when the file
  /// ends first or cannot be read.
  public static func read(
    _ descriptor: FileDescriptor, _ count: Int, at offset: Int64, _ fileSystem: any FileSystem
  ) -> [UInt8]? {
    guard let bytes = try? fileSystem.read(descriptor, count: count, at: offset),
      bytes.count == count
    else { return nil }
    return bytes
  }

  /// Block `number` of the body, checked; `nil` when it cannot be read or fails its check.
  private func block(_ number: Int) -> [UInt8]? {
    if let block = blocks[number] { return block }
    guard number >= 0, number < checksums.count else { return nil }
    let start = number * Self.blockSize
    let length = min(Self.blockSize, bodyLength - start)
    guard let bytes = Self.read(descriptor, length, at: bodyStart + Int64(start), fileSystem),
      CRC32.checksum(bytes) == checksums[number]
    else { return nil }
    if blocks.count > 256 { blocks.removeAll(keepingCapacity: true) }
    blocks[number] = bytes
    return bytes
  }

  /// `count` bytes of the body at `offset`; `nil` past its end or when a block fails its
  /// check.
  public func bytes(at offset: Int, count: Int) -> [UInt8]? {
    guard count >= 0, offset >= 0, offset <= bodyLength - count else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(count)
    var position = offset
    while position < offset + count {
      let number = position / Self.blockSize
      guard let block = block(number) else { return nil }
      let within = position - number * Self.blockSize
      let take = min(block.count - within, offset + count - position)
      out += block[within..<(within + take)]
      position += take
    }
    return out
  }

  /// A little-endian integer of the body at `offset`; `nil` past its end or when a block
  /// fails its check.
  public func integer<T: FixedWidthInteger>(at offset: Int) -> T? {
    bytes(at: offset, count: MemoryLayout<T>.size)?.withUnsafeBytes {
      T(littleEndian: $0.loadUnaligned(as: T.self))
    }
  }
}
