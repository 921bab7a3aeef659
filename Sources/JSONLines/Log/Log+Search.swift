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
  /// - Parameter found: Receives the line's place and its bytes (without the newline).
  /// - Throws: ``LogError/io(_:)`` when the file cannot be read.
  public func lines(
    holdingAnyOf needles: [[UInt8]], _ found: (LineSpan, UnsafeRawBufferPointer) -> Void
  ) throws(LogError) {
    let chunk = 1 << 20
    var carry = [UInt8]()
    var offset: Int64 = 0  // the file offset of carry's first byte
    var line = 0
    var position: Int64 = 0
    while position < committedEnd {
      let count = Int(min(Int64(chunk), committedEnd - position))
      let bytes: [UInt8]
      do { bytes = try fileSystem.read(descriptor, count: count, at: position) } catch {
        throw .io(error)
      }
      guard bytes.count == count else {
        throw .io(
          FileSystemError(operation: "read", path: path, code: 0, reason: "the file is shorter"))
      }
      position += Int64(count)
      carry += bytes
      let consumed = carry.withUnsafeBytes { raw -> Int in
        var start = 0
        while start < raw.count,
          let newline = memchr(raw.baseAddress! + start, 0x0A, raw.count - start)
        {
          let end = raw.baseAddress!.distance(to: UnsafeRawPointer(newline))
          line += 1
          let text = UnsafeRawBufferPointer(rebasing: raw[start..<end])
          if line > 1, needles.contains(where: { Self.holds(text, $0) }) {
            found(LineSpan(offset: offset + Int64(start), length: end - start, line: line), text)
          }
          start = end + 1
        }
        return start
      }
      carry.removeFirst(consumed)
      offset += Int64(consumed)
    }
  }

  /// Whether `text` holds `needle`.
  private static func holds(_ text: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, text.count >= needle.count else { return false }
    return needle.withUnsafeBytes { pattern -> Bool in
      let base = text.baseAddress!
      let first = Int32(pattern[0])
      var start = 0
      let last = text.count - pattern.count  // the last place the needle can start
      while start <= last, let hit = memchr(base + start, first, last - start + 1) {
        let at = base.distance(to: UnsafeRawPointer(hit))
        if memcmp(base + at, pattern.baseAddress!, pattern.count) == 0 { return true }
        start = at + 1
      }
      return false
    }
  }
}
