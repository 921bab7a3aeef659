public import StashFiles

extension LineSpan {
  /// How many bytes ``ByteWriter/span(_:)`` writes.
  public static let encodedLength = 20
}

extension ByteWriter {
  /// Appends a line's offset, length and number.
  public mutating func span(_ span: LineSpan) {
    integer(span.offset)
    integer(UInt32(span.length))
    integer(Int64(span.line))
  }

  /// Appends a prefix: device, inode, end, lines, last sequence, then each probe's line and
  /// CRC-32 (as the local index's head holds it).
  public mutating func prefix(_ prefix: LogPrefix) {
    integer(prefix.device)
    integer(prefix.inode)
    integer(prefix.end)
    integer(Int64(prefix.lines))
    integer(prefix.lastSequence)
    integer(UInt32(prefix.probes.count))
    for probe in prefix.probes {
      span(probe.span)
      integer(probe.checksum)
    }
  }
}

extension RawReader {
  /// The next line span; `nil` past the end or out of range.
  public mutating func span() -> LineSpan? {
    guard let offset: Int64 = integer(), let length: UInt32 = integer(),
      let line: Int64 = integer(), offset >= 0, line >= 0, line <= Int64(Int32.max)
    else { return nil }
    return LineSpan(offset: offset, length: Int(length), line: Int(line))
  }

  /// The next prefix (as ``ByteWriter/prefix(_:)`` writes it); `nil` when it does not fit.
  public mutating func prefix() -> LogPrefix? {
    guard let device: UInt64 = integer(), let inode: UInt64 = integer(),
      let end: Int64 = integer(), let lines: Int64 = integer(),
      let lastSequence: Int64 = integer(), let count: UInt32 = integer(), count <= 64,
      lines >= 0, lines <= Int64(Int32.max), end >= 0
    else { return nil }
    var probes = [LogPrefix.Probe]()
    for _ in 0..<count {
      guard let span = span(), let checksum: UInt32 = integer() else { return nil }
      probes.append(LogPrefix.Probe(span: span, checksum: checksum))
    }
    return LogPrefix(
      device: device, inode: inode, end: end, lastSequence: lastSequence, lines: Int(lines),
      probes: probes)
  }
}
