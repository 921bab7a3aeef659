import StashModel

/// Reads a log's lines from an offset and sorts them into committed transactions and a tail.
///
/// The rules, in one place:
/// - a line is valid when it ends with a newline, its checksum matches, it parses, and it fits
///   the transaction being read (same `tx` number, or the next one after a commit);
/// - a commit line whose count matches closes the transaction, which is then applied;
/// - after the first invalid line everything is tail, unless a valid commit line follows: then
///   the damage is before the last commit and the log is refused, naming the first bad line.
struct Scanner {
  struct Tail {
    /// The first line of the tail.
    let line: Int
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

  private var expectsHeader: Bool
  private var lineNumber: Int
  private var pendingSequence: Int64?
  private var pendingOperations: [Operation] = []
  private var firstBad: (line: Int, reason: String)?

  /// Why the first invalid line was invalid, if there was one.
  var firstBadReason: String? { firstBad?.reason }

  init(path: String, start: Int64, lastSequence: Int64, lines: Int, expectsHeader: Bool) {
    self.path = path
    self.committedEnd = start
    self.lastSequence = lastSequence
    self.committedLines = lines
    self.lineNumber = lines
    self.expectsHeader = expectsHeader
  }

  /// Reads from `committedEnd` to the end of the file in large chunks, into one buffer that
  /// is reused: a line cut by a chunk's end is moved to the buffer's front and completed by the
  /// next read.
  mutating func scan(
    _ descriptor: FileDescriptor, fileSystem: any FileSystem,
    apply: (Transaction) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void = { _ in }
  ) throws(LogError) {
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var carried = 0  // bytes at the buffer's front: the start of a line not yet complete
    var offset = committedEnd  // the file offset of the buffer's first byte
    while true {
      if carried == buffer.count {  // a line longer than the buffer: make room
        buffer.append(contentsOf: repeatElement(0, count: buffer.count))
      }
      let readAt = offset + Int64(carried)
      let result: Result<Int, FileSystemError> = buffer.withUnsafeMutableBytes { raw in
        Result { () throws(FileSystemError) in
          try fileSystem.read(
            descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[carried...]),
            at: readAt)
        }
      }
      let count: Int
      do { count = try result.get() } catch { throw .io(error.renamed(path)) }
      let filled = carried + count
      let consumed = try lines(
        of: buffer, upTo: filled, at: offset, endOfFile: count == 0, apply: apply,
        header: readHeader)
      if count == 0 {
        finish(fileSize: offset + Int64(filled))
        return
      }
      carried = filled - consumed
      if consumed > 0 && carried > 0 {
        buffer.withUnsafeMutableBytes { raw in
          raw.baseAddress!.copyMemory(from: raw.baseAddress! + consumed, byteCount: carried)
        }
      }
      offset += Int64(consumed)
    }
  }

  /// Handles every complete line of `bytes` (and at the end of the file, the unterminated
  /// rest); returns how many bytes were handled.
  @discardableResult
  private mutating func lines(
    of bytes: [UInt8], upTo filled: Int, at offset: Int64, endOfFile: Bool,
    apply: (Transaction) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void
  ) throws(LogError) -> Int {
    var failure: LogError?
    let consumed = bytes.withUnsafeBytes { whole in
      let raw = UnsafeRawBufferPointer(rebasing: whole[0..<filled])
      var start = 0
      do throws(LogError) {
        while let newline = LineFraming.newline(in: raw, from: start) {
          try line(
            UnsafeRawBufferPointer(rebasing: raw[start..<newline]), at: offset + Int64(start),
            terminated: true, apply: apply, header: readHeader)
          start = newline + 1
        }
        if endOfFile && start < raw.count {
          try line(
            UnsafeRawBufferPointer(rebasing: raw[start...]), at: offset + Int64(start),
            terminated: false, apply: apply, header: readHeader)
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
    let reason = firstBad?.reason ?? "an uncommitted transaction"
    tail = Tail(line: committedLines + 1, reason: reason, fileSize: fileSize)
  }

  private mutating func line(
    _ bytes: UnsafeRawBufferPointer, at offset: Int64, terminated: Bool,
    apply: (Transaction) throws(LogError) -> Void,
    header readHeader: (LogHeader) throws(LogError) -> Void
  ) throws(LogError) {
    lineNumber += 1
    let decoded: Result<JSONObject, LineProblem> =
      terminated ? LineFraming.decode(bytes) : .failure(.unterminated)
    let object: JSONObject
    switch decoded {
    case .success(let value): object = value
    case .failure(let problem):
      markBad(problem.reason)
      return
    }
    if let firstBad {
      // Anything valid after damage is tail, unless it commits: then the damage is before
      // the last commit and dropping it would lose a committed transaction.
      if object["commit"] != nil {
        throw .damaged(path: path, line: firstBad.line, reason: firstBad.reason)
      }
      return
    }
    if expectsHeader {
      expectsHeader = false
      guard case .object(let fields)? = object["header"], let header = LogHeader(json: fields)
      else { throw .damaged(path: path, line: lineNumber, reason: "its header is not valid") }
      self.header = header
      try readHeader(header)
      committedEnd = offset + Int64(bytes.count) + 1
      committedLines = lineNumber
      return
    }
    guard case .integer(let sequence)? = object["tx"] else {
      markBad("it is not part of a transaction")
      return
    }
    if case .object(let operation)? = object["op"] {
      let expected = pendingSequence ?? lastSequence + 1
      guard sequence == expected else {
        markBad("transaction \(sequence) where \(expected) was expected")
        return
      }
      pendingSequence = sequence
      pendingOperations.append(Operation(line: lineNumber, object: operation))
    } else if case .integer(let count)? = object["commit"] {
      guard sequence == pendingSequence, count == pendingOperations.count else {
        // A valid commit that does not close the transaction read so far: the lines it
        // commits are missing or extra, which is damage before this commit.
        throw .damaged(
          path: path, line: lineNumber,
          reason: "its commit of transaction \(sequence) does not match the lines before it")
      }
      try apply(Transaction(sequence: sequence, operations: pendingOperations))
      lastSequence = sequence
      pendingSequence = nil
      pendingOperations.removeAll(keepingCapacity: true)
      committedEnd = offset + Int64(bytes.count) + 1
      committedLines = lineNumber
    } else {
      markBad("it is neither an operation nor a commit")
    }
  }

  private mutating func markBad(_ reason: String) {
    if firstBad == nil { firstBad = (lineNumber, reason) }
  }
}
