import StashBase
import StashFiles
import StashModel

/// Reads a log's lines from an offset and sorts them into committed transactions and a tail.
///
/// The rules, in one place:
/// - a line is valid when it ends with a newline, is at most ``LineFraming/maximumLineLength``
///   bytes, its checksum matches, it parses, and it fits the transaction being read (same `tx`
///   number, or the next one after a commit);
/// - a commit line whose count matches closes the transaction, which is then applied;
/// - after the first invalid line everything is tail: the **last transaction**, everything
///   after the last commit an fsync is known to have made durable. A save is written only
///   after the one before it was synchronized, so that commit is the one before the last
///   transaction in the file: the damage may be followed by one valid commit line, of the
///   transaction after the last commit read (transactions are numbered without gaps, so only
///   that transaction lies between the two), and by nothing after it. This is what a power cut
///   leaves when a later page of a save reached the disk and an earlier one did not (zeros,
///   or garbage, under a valid commit line). Anything else valid that commits after damage (a
///   commit of another transaction, or any byte after the closing commit) means the damage is
///   before the last durable commit: the log is refused, naming the first bad line.
///
/// A tail is one of two kinds (``TailReport/Kind``), told apart by its bytes alone:
/// - **torn**: valid operation lines of the next transaction, and at most one last line without
///   a newline. This is all a write that stopped (a crash, a kill, a full disk) can leave,
///   since a transaction is written front to back and its commit line comes last;
/// - **damaged**: anything else, that is a complete line (ended by a newline) that fails its
///   checksum, does not parse, is too long or does not fit, a last line that is a complete
///   commit whose newline is missing or changed, or damage under the commit that closes it. A
///   stopped write cannot make these; a changed byte or a power cut can, and the damaged
///   transaction may be one that was reported saved, so it is never dropped quietly.
struct Scanner {
  struct Tail {
    /// The first line of the tail.
    let line: Int
    let kind: TailReport.Kind
    let reason: String
    /// The file's size when it was scanned.
    let fileSize: Int64
  }

  let path: String
  private(set) var header: LogHeader?
  private(set) var committedEnd: Int64
  private(set) var lastSequence: Int64
  private(set) var committedLines: Int
  private(set) var tail: Tail?
  /// The last line of the committed part: the last commit line, or the header when there is
  /// no transaction (`nil` until one is read, or when scanning started past it).
  private(set) var lastCommit: LineSpan?

  private var expectsHeader: Bool
  /// Where to stop reading (`nil`: at the end of the file).
  private let end: Int64?
  private var lineNumber: Int
  private var pendingSequence: Int64?
  /// How many operation lines of the transaction being read were handed out.
  private var pendingCount = 0
  /// The first invalid line, and whether it was complete (ended by a newline).
  private var firstBad: (line: Int, reason: String, complete: Bool)?
  /// The valid commit line after the first invalid one that closes the transaction it is in
  /// (the one after the last commit read), and that transaction's number.
  private var closing: (line: Int, sequence: Int64)?

  /// Why the first invalid line was invalid, if there was one.
  var firstBadReason: String? { firstBad?.reason }

  /// How large the buffer a scan reads into starts (it grows for a longer line).
  private let bufferSize: Int

  init(
    path: String, start: Int64, lastSequence: Int64, lines: Int, expectsHeader: Bool,
    end: Int64? = nil, bufferSize: Int = 1 << 20
  ) {
    self.path = path
    self.end = end
    self.bufferSize = bufferSize
    self.committedEnd = start
    self.lastSequence = lastSequence
    self.committedLines = lines
    self.lineNumber = lines
    self.expectsHeader = expectsHeader
  }

  /// Reads from `committedEnd` to the end of the file, handing `apply` each committed
  /// transaction whole (its operations are kept until its commit line is read).
  mutating func scan(
    _ descriptor: FileDescriptor, fileSystem: any FileSystem,
    apply: (Transaction) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void = { _ in }
  ) throws(LogError) {
    var gathered = GatheredTransaction()
    try scan(descriptor, fileSystem: fileSystem, header: readHeader) { operation in
      gathered.add(operation)
    } commit: { (sequence) throws(LogError) in
      try apply(gathered.take(sequence))
    }
  }

  /// Reads from `committedEnd` to the end of the file in large chunks, into one buffer that
  /// is reused: a line cut by a chunk's end is moved to the buffer's front and completed by the
  /// next read.
  ///
  /// Each operation line of a transaction goes to `operation` as soon as it is read, so that
  /// the caller holds a transaction of any size in the form it wants rather than as parsed
  /// lines; `commit` is called when the commit line that closes those operations is read. The
  /// operations handed out since the last commit belong to a transaction that may never
  /// commit (a tail): the caller drops them when the scan ends without their commit.
  /// `direct` is offered an operation line's `op` bytes before the line is parsed (see
  /// ``Log/open(at:format:supportedVersion:recoverTail:fileSystem:header:operation:commit:direct:)``).
  mutating func scan(
    _ descriptor: FileDescriptor, fileSystem: any FileSystem,
    header readHeader: (LogHeader) throws(LogError) -> Void = { _ in },
    operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool = { _, _ in false }
  ) throws(LogError) {
    var buffer = [UInt8](repeating: 0, count: bufferSize)
    var carried = 0  // bytes at the buffer's front: the start of a line not yet complete
    var offset = committedEnd  // the file offset of the buffer's first byte
    var skipping = false  // inside a line longer than the limit, whose bytes are not kept
    while true {
      if carried == buffer.count {
        if buffer.count > LineFraming.maximumLineLength {
          // The line is longer than any line may be: find its end without keeping it, so that
          // a huge line costs neither memory nor parsing.
          skipping = true
          offset += Int64(carried)
          carried = 0
        } else {  // a line longer than the buffer: make room
          buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
      }
      let readAt = offset + Int64(carried)
      let room = min(buffer.count - carried, end.map { Int(max(0, $0 - readAt)) } ?? Int.max)
      let result: Result<Int, FileSystemError> = buffer.withUnsafeMutableBytes { raw in
        guard room > 0 else { return .success(0) }
        return Result { () throws(FileSystemError) in
          try fileSystem.read(
            descriptor,
            into: UnsafeMutableRawBufferPointer(rebasing: raw[carried..<(carried + room)]),
            at: readAt)
        }
      }
      let count: Int
      do { count = try result.get() } catch { throw .io(error.renamed(path)) }
      var filled = carried + count
      if skipping {
        let end = buffer.withUnsafeBytes { raw in
          LineFraming.newline(in: UnsafeRawBufferPointer(rebasing: raw[0..<filled]), from: 0)
        }
        guard let end else {
          if count == 0 {
            try tooLong(terminated: false)
            finish(fileSize: offset + Int64(filled))
            return
          }
          offset += Int64(filled)
          carried = 0
          continue
        }
        skipping = false
        try tooLong(terminated: true)
        filled = move(&buffer, from: end + 1, count: filled - end - 1)
        offset += Int64(end + 1)
        carried = filled
        continue
      }
      let consumed = try lines(
        of: buffer, upTo: filled, at: offset, endOfFile: count == 0,
        operation: operation, commit: commit, header: readHeader, direct: direct)
      if count == 0 {
        finish(fileSize: offset + Int64(filled))
        return
      }
      carried = move(&buffer, from: consumed, count: filled - consumed)
      offset += Int64(consumed)
    }
  }

  /// Moves `count` bytes from `start` to the buffer's front; returns `count`.
  private func move(_ buffer: inout [UInt8], from start: Int, count: Int) -> Int {
    if start > 0 && count > 0 {
      buffer.withUnsafeMutableBytes { raw in
        raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: count)
      }
    }
    return count
  }

  /// Counts a line longer than the limit, which is never valid.
  private mutating func tooLong(terminated: Bool) throws(LogError) {
    lineNumber += 1
    try refuseAfterClosing()
    markBad(LineFraming.tooLongReason, complete: terminated)
  }

  /// Refuses any line after the commit that closed a damaged last transaction: that commit
  /// was synchronized before the line was written, so the damage is not a power cut's.
  private func refuseAfterClosing() throws(LogError) {
    guard let closing, let firstBad else { return }
    throw .damaged(
      path: path, line: firstBad.line,
      reason: "\(firstBad.reason), before the commit of transaction \(closing.sequence) at line "
        + "\(closing.line), which more lines follow")
  }

  /// Handles every complete line of `bytes` (and at the end of the file, the unterminated
  /// rest); returns how many bytes were handled.
  @discardableResult
  private mutating func lines(
    of bytes: [UInt8], upTo filled: Int, at offset: Int64, endOfFile: Bool,
    operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool
  ) throws(LogError) -> Int {
    var failure: LogError?
    let consumed = bytes.withUnsafeBytes { whole in
      let raw = UnsafeRawBufferPointer(rebasing: whole[0..<filled])
      var start = 0
      do throws(LogError) {
        while let newline = LineFraming.newline(in: raw, from: start) {
          try line(
            UnsafeRawBufferPointer(rebasing: raw[start..<newline]), at: offset + Int64(start),
            terminated: true, operation: operation, commit: commit,
            header: readHeader, direct: direct)
          start = newline + 1
        }
        if endOfFile && start < raw.count {
          try line(
            UnsafeRawBufferPointer(rebasing: raw[start...]), at: offset + Int64(start),
            terminated: false, operation: operation, commit: commit,
            header: readHeader, direct: direct)
          start = raw.count
        }
      } catch {
        failure = error
      }
      return start
    }
    if let failure { throw failure }
    return consumed
  }

  private mutating func finish(fileSize: Int64) {
    guard fileSize > committedEnd else { return }
    let start = committedLines + 1
    guard let firstBad else {
      tail = Tail(
        line: start, kind: .torn, reason: "an uncommitted transaction", fileSize: fileSize)
      return
    }
    guard let closing, closing.line != firstBad.line else {
      tail = Tail(
        line: start, kind: firstBad.complete ? .damaged : .torn,
        reason: "line \(firstBad.line): \(firstBad.reason)", fileSize: fileSize)
      return
    }
    tail = Tail(
      line: start, kind: .damaged,
      reason: "line \(firstBad.line): \(firstBad.reason), under the commit of transaction "
        + "\(closing.sequence) at line \(closing.line): it was not written whole, as a power cut "
        + "can leave a save", fileSize: fileSize)
  }

  private mutating func line(
    _ bytes: UnsafeRawBufferPointer, at offset: Int64, terminated: Bool,
    operation: (Operation) throws(LogError) -> Void,
    commit: (Int64) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void,
    direct: (UnsafeRawBufferPointer, LineSpan) -> Bool
  ) throws(LogError) {
    lineNumber += 1
    try refuseAfterClosing()
    guard bytes.count <= LineFraming.maximumLineLength else {
      markBad(LineFraming.tooLongReason, complete: terminated)
      return
    }
    // An operation line of the transaction being read, in the exact frame the writer gives
    // it, whose operation the reader takes straight from its bytes: no tree (issue 26, item
    // 5). Taken only where the parsed line would be handed out, and only when the reader
    // read the whole operation (so the line is valid JSON); anything else is parsed below.
    var checked = false
    if terminated, firstBad == nil, !expectsHeader, LineFraming.checksumProblem(bytes) == nil {
      checked = true
      if let (sequence, body) = LineFraming.operationFrame(bytes),
        sequence == pendingSequence ?? lastSequence + 1,
        direct(body, LineSpan(offset: offset, length: bytes.count, line: lineNumber))
      {
        pendingSequence = sequence
        pendingCount += 1
        return
      }
    }
    let object: JSONObject
    switch checked ? LineFraming.parse(bytes) : LineFraming.decode(bytes) {
    case .success(let value) where terminated: object = value
    case .success(let value):
      // A whole line without its newline: a write that stopped one byte short, or a changed
      // newline. Only a commit can make it count, so only a commit is reported as damage.
      if firstBad == nil, isClosingCommit(value) {
        markBad("it is a complete commit whose newline is missing", complete: true)
      } else {
        markBad(LineProblem.unterminated.reason, complete: false)
      }
      return
    case .failure(let problem) where terminated:
      markBad(problem.reason, complete: true)
      return
    case .failure:
      // A whole commit followed by a byte that is not its newline was changed, not cut short:
      // a write that stops leaves a prefix of the right bytes.
      if firstBad == nil, bytes.count > 1,
        case .success(let value) = LineFraming.decode(
          UnsafeRawBufferPointer(rebasing: bytes.dropLast())),
        isClosingCommit(value)
      {
        markBad("it is a complete commit whose newline was changed", complete: true)
      } else {
        markBad(LineProblem.unterminated.reason, complete: false)
      }
      return
    }
    if let firstBad {
      // Anything valid after damage is tail, unless it commits: a commit that closes the
      // transaction the damage is in ends the last transaction (see the type's rules); any
      // other commit means the damage is before the last commit, and dropping it would lose a
      // committed transaction.
      if object["commit"] != nil {
        guard terminated, case .integer(let sequence)? = object["tx"], sequence == lastSequence + 1
        else { throw .damaged(path: path, line: firstBad.line, reason: firstBad.reason) }
        closing = (lineNumber, sequence)
      }
      return
    }
    if expectsHeader {
      expectsHeader = false
      guard case .object(let fields)? = object["header"], let header = LogHeader(json: fields)
      else { throw .damaged(path: path, line: lineNumber, reason: "its header is not valid") }
      self.header = header
      try readHeader(header)
      lastCommit = LineSpan(offset: offset, length: bytes.count, line: lineNumber)
      committedEnd = offset + Int64(bytes.count) + 1
      committedLines = lineNumber
      return
    }
    guard case .integer(let sequence)? = object["tx"] else {
      markBad("it is not part of a transaction")
      return
    }
    if case .object(let fields)? = object["op"] {
      let expected = pendingSequence ?? lastSequence + 1
      guard sequence == expected else {
        markBad("transaction \(sequence) where \(expected) was expected")
        return
      }
      pendingSequence = sequence
      pendingCount += 1
      try operation(
        Operation(
          line: lineNumber, object: fields,
          span: LineSpan(offset: offset, length: bytes.count, line: lineNumber)))
    } else if case .integer(let count)? = object["commit"] {
      guard sequence == pendingSequence, count == pendingCount else {
        // A valid commit that does not close the transaction read so far: the lines it
        // commits are missing or extra, which is damage before this commit, in the
        // transaction it closes when it is the next one (then the last, if nothing follows).
        let reason = "its commit of transaction \(sequence) does not match the lines before it"
        guard sequence == lastSequence + 1 else {
          throw .damaged(path: path, line: lineNumber, reason: reason)
        }
        markBad(reason)
        closing = (lineNumber, sequence)
        return
      }
      try commit(sequence)
      lastCommit = LineSpan(offset: offset, length: bytes.count, line: lineNumber)
      lastSequence = sequence
      pendingSequence = nil
      pendingCount = 0
      committedEnd = offset + Int64(bytes.count) + 1
      committedLines = lineNumber
    } else {
      markBad("it is neither an operation nor a commit")
    }
  }

  /// Whether `object` is the commit line that closes the transaction read so far.
  private func isClosingCommit(_ object: JSONObject) -> Bool {
    guard case .integer(let sequence)? = object["tx"], case .integer(let count)? = object["commit"]
    else { return false }
    return sequence == pendingSequence && count == pendingCount
  }

  private mutating func markBad(_ reason: String, complete: Bool = true) {
    if firstBad == nil { firstBad = (lineNumber, reason, complete) }
  }
}
