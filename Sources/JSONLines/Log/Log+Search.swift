public import StashBase
import StashFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Log {
  /// Calls `found` with each line of the committed part (after the header) that holds one
  /// of `needles` byte for byte, in file order, reading the file a mebibyte at a time and
  /// decoding nothing: where a one-record command finds that record's lines (each then read
  /// and checked with ``operation(at:)``).
  ///
  /// - Parameters:
  ///   - start: Where to start instead of the file's start: the end of a committed prefix
  ///     and its count of lines (``LogPrefix/end`` and ``LogPrefix/lines``, the header
  ///     included), so that only the lines after it are searched.
  ///   - found: Receives the line's place and its bytes (without the newline).
  /// - Throws: ``LogError/io(_:)`` when the file cannot be read.
  public func lines(
    holdingAnyOf needles: [[UInt8]], after start: (end: Int64, lines: Int)? = nil,
    _ found: (LineSpan, UnsafeRawBufferPointer) -> Void
  ) throws(LogError) {
    let chunk = 1 << 20
    // One buffer, reused: the part of a line carried from the last chunk, then the next
    // chunk read into it (no array and no fresh pages per mebibyte).
    var carry = [UInt8](repeating: 0, count: 2 * chunk)
    var carried = 0
    var offset: Int64 = start?.end ?? 0  // the file offset of carry's first byte
    var line = start?.lines ?? 0
    var position: Int64 = offset
    while position < committedEnd {
      let count = Int(min(Int64(chunk), committedEnd - position))
      if carry.count < carried + count {
        carry += [UInt8](repeating: 0, count: carried + count - carry.count)
      }
      var total = 0
      while total < count {
        let read = carry.withUnsafeMutableBytes { raw in
          Result { () throws(FileSystemError) in
            try fileSystem.read(
              descriptor,
              into: UnsafeMutableRawBufferPointer(
                rebasing: raw[(carried + total)..<(carried + count)]),
              at: position + Int64(total))
          }
        }
        let got: Int
        do { got = try read.get() } catch { throw .io(error) }
        guard got > 0 else {
          throw .io(
            FileSystemError(operation: "read", path: path, code: 0, reason: "the file is shorter"))
        }
        total += got
      }
      position += Int64(count)
      let filled = carried + count
      let consumed = carry.withUnsafeBytes { whole -> Int in
        let raw = UnsafeRawBufferPointer(rebasing: whole[0..<filled])
        // The complete lines read so far; the rest waits for the next chunk.
        guard let base = raw.baseAddress, let last = raw.lastIndex(of: 0x0A) else { return 0 }
        let complete = last + 1
        // Where the needles are (each one search over the whole chunk, not one per line: a
        // needle's first byte, such as a quote, is in every line many times).
        let hits = Self.places(
          of: needles, in: UnsafeRawBufferPointer(start: base, count: complete))
        var next = 0
        var start = 0
        while start < complete, let newline = memchr(base + start, 0x0A, complete - start) {
          let end = base.distance(to: UnsafeRawPointer(newline))
          line += 1
          while next < hits.count, hits[next] < start { next += 1 }
          if line > 1, next < hits.count, hits[next] < end {
            let text = UnsafeRawBufferPointer(rebasing: raw[start..<end])
            found(LineSpan(offset: offset + Int64(start), length: end - start, line: line), text)
          }
          start = end + 1
        }
        return start
      }
      carried = filled - consumed
      if consumed > 0, carried > 0 {
        carry.withUnsafeMutableBytes { raw in
          raw.baseAddress!.copyMemory(from: raw.baseAddress! + consumed, byteCount: carried)
        }
      }
      offset += Int64(consumed)
    }
  }

  /// ``operation(at:)`` with the number of the transaction the line belongs to.
  ///
  /// - Parameter span: Where the line is (from an index).
  public func sequencedOperation(at span: LineSpan) -> (sequence: Int64, operation: JSONObject)? {
    guard span.offset + Int64(span.length) < committedEnd,
      let bytes = try? readLine(span),
      case .success(let object) = bytes.withUnsafeBytes({ LineFraming.decode($0) }),
      case .integer(let sequence)? = object["tx"], sequence >= 1, sequence <= lastSequence,
      case .object(let operation)? = object["op"]
    else { return nil }
    return (sequence, operation)
  }

  /// The change one committed line holds, for `content` to apply, read as an open reads it:
  /// straight from its bytes when the line is framed exactly as the writer frames it and the
  /// content reads its operation directly (``LogContent/change(fromBytes:line:)``), else from
  /// its parsed operation (``operation(at:)``, ``LogContent/change(from:line:)``). `nil` when
  /// the line is not an operation of the committed part, or its operation does not decode.
  ///
  /// What a listing, a lookup through an index and a focused open read of each line they
  /// name: `list` and `export` parsed every row's line into a tree (issue 26, item 5).
  public func change<Content: LogContent>(at span: LineSpan, in content: Content)
    -> Content.Change?
  {
    guard span.offset + Int64(span.length) < committedEnd, let bytes = try? readLine(span) else {
      return nil
    }
    return bytes.withUnsafeBytes { line -> Content.Change? in
      guard LineFraming.checksumProblem(line) == nil else { return nil }
      if let change = operationBytes(of: line, { content.change(fromBytes: $0, line: span.line) })
        ?? nil
      {
        return change
      }
      guard case .success(let object) = LineFraming.parse(line),
        case .integer(let sequence)? = object["tx"], sequence >= 1, sequence <= lastSequence,
        case .object(let operation)? = object["op"]
      else { return nil }
      return try? content.change(from: operation, line: span.line)
    }
  }

  /// What `read` makes of the operation of one committed line, straight from its bytes: `nil`
  /// when the line is not there, fails its checksum, or is not framed exactly as the writer
  /// frames it (read it through ``sequencedOperation(at:)``, which parses it).
  ///
  /// - Parameters:
  ///   - span: Where the line is (from an index or a search).
  ///   - read: Reads the operation object's bytes; they are valid only during the call.
  public func readOperation<T>(at span: LineSpan, _ read: (UnsafeRawBufferPointer) -> T) -> T? {
    guard span.offset + Int64(span.length) < committedEnd, let bytes = try? readLine(span) else {
      return nil
    }
    return bytes.withUnsafeBytes { line -> T? in
      guard LineFraming.checksumProblem(line) == nil else { return nil }
      return operationBytes(of: line, read)
    }
  }

  /// `read` of the operation in a line framed as the writer frames it, of a transaction of
  /// the committed part; `nil` for any other line (its checksum is checked by the caller).
  private func operationBytes<T>(
    of line: UnsafeRawBufferPointer, _ read: (UnsafeRawBufferPointer) -> T
  ) -> T? {
    guard let (sequence, body) = LineFraming.operationFrame(line), sequence >= 1,
      sequence <= lastSequence
    else { return nil }
    return read(body)
  }

  /// The operation a committed line's bytes hold (as ``lines(holdingAnyOf:after:_:)`` hands
  /// them over), its checksum and framing checked; `nil` when they are not an operation line.
  public func operation(inLine text: UnsafeRawBufferPointer) -> JSONObject? {
    guard case .success(let object) = LineFraming.decode(text),
      case .integer(let sequence)? = object["tx"], sequence >= 1, sequence <= lastSequence,
      case .object(let operation)? = object["op"]
    else { return nil }
    return operation
  }

  /// Whether `prefix` still describes this log's file: the same file (device and inode), at
  /// least as long, and each probe line's bytes as recorded.
  public func isDescribed(by prefix: LogPrefix) -> Bool {
    guard prefix.device == identity.device, prefix.inode == identity.inode,
      prefix.end <= committedEnd
    else { return false }
    return prefix.probes.allSatisfy { probe in
      (try? readLine(probe.span)).map { CRC32.checksum($0) == probe.checksum } ?? false
    }
  }

  /// Where each of `needles` starts in `text`, every place, in order (a needle holds no
  /// newline, so each place is inside one line).
  private static func places(of needles: [[UInt8]], in text: UnsafeRawBufferPointer) -> [Int] {
    guard let base = text.baseAddress else { return [] }
    var places = [Int]()
    for needle in needles where !needle.isEmpty && needle.count <= text.count {
      // Boyer-Moore-Horspool: most steps skip a needle's length.
      let length = needle.count
      var shift = [Int](repeating: length, count: 256)
      for index in 0..<(length - 1) { shift[Int(needle[index])] = length - 1 - index }
      let lastByte = needle[length - 1]
      needle.withUnsafeBytes { pattern in
        shift.withUnsafeBufferPointer { shift in
          var at = 0
          while at <= text.count - length {
            let byte = text[at + length - 1]
            if byte == lastByte, memcmp(base + at, pattern.baseAddress!, length - 1) == 0 {
              places.append(at)
            }
            at += shift[Int(byte)]
          }
        }
      }
    }
    return needles.count > 1 ? places.sorted() : places
  }
}
