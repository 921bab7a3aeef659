import Foundation
public import StashBase
public import StashFiles
import StashModel

/// A committed prefix of one log file, described well enough to be recognised again: what an
/// index beside the store covers, so that opening replays only what follows it.
///
/// It is checked against the file every time it is used (``Log/open(at:resuming:format:supportedVersion:recoverTail:fileSystem:content:apply:)``):
/// the same file (device and inode: a compaction or a copy is another file), at least as long
/// as the prefix, and the same bytes in each probe line (the header, the prefix's last commit,
/// and lines spread through the prefix). A prefix that fails any check is not used.
public struct LogPrefix: Hashable, Sendable {
  /// The file's device.
  public let device: UInt64
  /// The file's inode.
  public let inode: UInt64
  /// The byte length of the prefix (the end of its last commit).
  public let end: Int64
  /// The number of the prefix's last transaction.
  public let lastSequence: Int64
  /// The number of lines in the prefix.
  public let lines: Int
  /// Lines whose bytes must be unchanged: the header first, the last commit last.
  public let probes: [Probe]

  /// One line of the prefix and the CRC-32 of its bytes.
  public struct Probe: Hashable, Sendable {
    /// Where the line is.
    public let span: LineSpan
    /// The CRC-32 of the line's bytes (without its newline).
    public let checksum: UInt32

    /// A probe.
    public init(span: LineSpan, checksum: UInt32) {
      self.span = span
      self.checksum = checksum
    }
  }

  /// A prefix (as read back from an index).
  public init(
    device: UInt64, inode: UInt64, end: Int64, lastSequence: Int64, lines: Int,
    probes: [Probe]
  ) {
    self.device = device
    self.inode = inode
    self.end = end
    self.lastSequence = lastSequence
    self.lines = lines
    self.probes = probes
  }
}

extension Log {
  /// Describes the committed part of the file as it is now.
  ///
  /// - Parameter anchors: Lines of the committed part to probe besides the header and the
  ///   last commit (a few spread through the file).
  /// - Returns: The prefix, or `nil` when this log does not know where its last commit is
  ///   (after an undo) or a probe cannot be read.
  public func describePrefix(anchors: [LineSpan]) -> LogPrefix? {
    guard let last = lastCommit, last.offset + Int64(last.length) + 1 == committedEnd,
      let header = headerSpan()
    else { return nil }
    var probes = [LogPrefix.Probe]()
    for span in [header] + anchors.filter({ $0.offset + Int64($0.length) < last.offset }) + [last] {
      guard let bytes = try? readLine(span) else { return nil }
      probes.append(LogPrefix.Probe(span: span, checksum: CRC32.checksum(bytes)))
    }
    return LogPrefix(
      device: identity.device, inode: identity.inode, end: committedEnd,
      lastSequence: lastSequence, lines: committedLines, probes: probes)
  }

  /// Opens a log whose committed prefix is already known (from an index), replaying only what
  /// follows the prefix.
  ///
  /// The prefix is checked first (see ``LogPrefix``), and its header handed to `header`; the
  /// lines after it are then read as a full open reads them (with the same rules: damage
  /// before the last transaction throws), each operation line handed to `direct` as bytes
  /// (or, when it declines, parsed to `operation`) and each commit to `commit`; `content` then
  /// builds the state of the prefix, knowing those transactions (reading the lines it needs
  /// with ``operation(at:)``), and applies them.
  ///
  /// - Returns: `nil` when the prefix does not describe this file (or `content` declines):
  ///   open it in full instead.
  /// - Throws: ``LogError`` for what a full open would refuse after the prefix.
  public static func open<State>(
    at path: String, resuming prefix: LogPrefix, format: String, supportedVersion: Int,
    recoverTail: Bool, fileSystem: any FileSystem = POSIXFileSystem(),
    header readHeader: (LogHeader) -> Void = { _ in },
    operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool = { _, _ in false },
    content: (LogHeader, Log) throws(LogError) -> State?
  ) throws(LogError) -> (log: Log, state: State, tail: TailReport?)? {
    let descriptor: FileDescriptor
    do {
      descriptor = try fileSystem.open(
        path, recoverTail ? .readWrite : .readOnly, options: .nonBlocking)
    } catch {
      throw error.code == ENOENT ? .missing(path) : .io(error.renamed(path))
    }
    // Until a `Log` owns the descriptor (and closes it when it goes), close it here.
    var owned = false
    defer { if !owned { fileSystem.close(descriptor) } }
    let identity = try Log.identity(of: descriptor, path, fileSystem)
    guard identity.kind == .regular, identity.device == prefix.device,
      identity.inode == prefix.inode, identity.size >= prefix.end,
      let headerProbe = prefix.probes.first, headerProbe.span.offset == 0,
      let last = prefix.probes.last,
      last.span.offset + Int64(last.span.length) + 1 == prefix.end
    else { return nil }
    // The header is read before anything else, to know its format and version.
    let headerBytes: [UInt8]
    do {
      headerBytes = try fileSystem.read(descriptor, count: headerProbe.span.length, at: 0)
    } catch {
      throw .io(error.renamed(path))
    }
    guard headerBytes.count == headerProbe.span.length,
      CRC32.checksum(headerBytes) == headerProbe.checksum,
      case .success(let object) = headerBytes.withUnsafeBytes({ LineFraming.decode($0) }),
      case .object(let fields)? = object["header"], let header = LogHeader(json: fields),
      header.format == format, header.version == supportedVersion
    else { return nil }
    owned = true
    let opened = Log(
      path: path, header: header, fileSystem: fileSystem, descriptor: descriptor,
      identity: identity, committedEnd: prefix.end, lastSequence: prefix.lastSequence,
      committedLines: prefix.lines, isWritable: recoverTail)
    for probe in prefix.probes.dropFirst() {
      guard let bytes = try? opened.readLine(probe.span), CRC32.checksum(bytes) == probe.checksum
      else { return nil }
    }
    opened.lastCommit = last.span
    readHeader(header)
    // The transactions after the prefix are read first, so that `content` knows what they
    // touch (a record they refer to), and applies them after it built the prefix's state.
    // Its buffer is sized to them (a few kilobytes after most saves), not to a whole file.
    var scanner = Scanner(
      path: path, start: prefix.end, lastSequence: prefix.lastSequence, lines: prefix.lines,
      expectsHeader: false,
      bufferSize: Int(clamping: max(1 << 12, min(1 << 20, identity.size - prefix.end + 1))))
    try scanner.scan(
      descriptor, fileSystem: fileSystem, operation: operation, commit: commit, direct: direct)
    guard let state = try content(header, opened) else { return nil }
    opened.committedEnd = scanner.committedEnd
    opened.lastSequence = scanner.lastSequence
    opened.committedLines = scanner.committedLines
    if let last = scanner.lastCommit { opened.lastCommit = last }
    let tail = try opened.dropTail(scanner.tail, recover: recoverTail)
    return (opened, state, tail)
  }

  /// Reads one operation line of the committed part, checking its checksum and framing.
  ///
  /// - Parameter span: Where the line is (from an index).
  /// - Returns: The operation object, or `nil` when the bytes there are not a valid operation
  ///   line of the committed part (the index no longer describes the file).
  public func operation(at span: LineSpan) -> JSONObject? {
    sequencedOperation(at: span)?.operation
  }

  /// Whether one line of the committed part is where `span` says and passes its checksum,
  /// without parsing it: what a listing checks of every line before it prints the first.
  ///
  /// - Parameter span: Where the line is (from an index).
  public func lineIsIntact(at span: LineSpan) -> Bool {
    guard span.offset + Int64(span.length) < committedEnd, let bytes = try? readLine(span) else {
      return false
    }
    return bytes.withUnsafeBytes { LineFraming.checksumProblem($0) == nil }
  }

  /// The bytes of one line, checking that a newline ends it.
  func readLine(_ span: LineSpan) throws(FileSystemError) -> [UInt8] {
    guard span.offset >= 0, span.length > 0, span.length <= LogLimits.maximumLineLength else {
      throw FileSystemError(
        operation: "read", path: path, code: 0, reason: "the line is out of range")
    }
    var bytes = try fileSystem.read(descriptor, count: span.length + 1, at: span.offset)
    guard bytes.count == span.length + 1, bytes.last == UInt8(ascii: "\n") else {
      throw FileSystemError(
        operation: "read", path: path, code: 0, reason: "the line is not where it was")
    }
    bytes.removeLast()
    return bytes
  }

  /// Where the header line is (the file's first line).
  private func headerSpan() -> LineSpan? {
    guard let bytes = try? fileSystem.read(descriptor, count: 64 << 10, at: 0),
      let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
    else { return nil }
    return LineSpan(offset: 0, length: newline, line: 1)
  }
}
