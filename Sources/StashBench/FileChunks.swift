import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The size of the reads the benchmarks make: large enough that system calls cost little,
/// small enough to stay in the cache hierarchy rather than hold the whole file.
let benchChunkSize = 1 << 20

/// An error opening or reading a file, with the system's message.
struct FileReadError: Error, CustomStringConvertible {
  /// The file's path as given.
  let path: String
  /// What failed and why, such as `open: No such file or directory`.
  let reason: String

  var description: String { "\(path): \(reason)" }
}

/// What one pass over a file measured.
struct ChunkedRead {
  /// How many bytes the file held.
  var byteCount = 0
  /// Time spent inside the per-chunk body only, excluding the reads.
  var bodyTime: Duration = .zero
  /// Time for the whole pass: open, reads and body.
  var totalTime: Duration = .zero
}

/// Reads a file sequentially in chunks of ``benchChunkSize`` bytes into one reused buffer.
///
/// - Parameters:
///   - path: The file to read.
///   - body: Called with each chunk in order; the buffer is reused after it returns.
/// - Returns: The byte count and timings of the pass.
/// - Throws: ``FileReadError`` when the file cannot be opened or read.
func readChunks(
  of path: String, _ body: (UnsafeRawBufferPointer) -> Void
) throws(FileReadError) -> ChunkedRead {
  let clock = ContinuousClock()
  let start = clock.now
  let descriptor = open(path, O_RDONLY)
  guard descriptor >= 0 else { throw FileReadError(path: path, reason: systemError("open")) }
  defer { close(descriptor) }
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: benchChunkSize, alignment: 64)
  defer { buffer.deallocate() }
  var result = ChunkedRead()
  while true {
    // Fill the whole buffer when possible so every chunk but the last is full-sized.
    var filled = 0
    while filled < buffer.count {
      let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw FileReadError(path: path, reason: systemError("read")) }
      if count == 0 { break }
      filled += count
    }
    if filled == 0 { break }
    let bodyStart = clock.now
    body(UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
    result.bodyTime += clock.now - bodyStart
    result.byteCount += filled
    if filled < buffer.count { break }
  }
  result.totalTime = clock.now - start
  return result
}

/// Prints a pass's size and throughput on standard error.
///
/// MB are 10^6 bytes, as `dd` and most benchmarks count them.
///
/// - Parameters:
///   - name: What was computed, such as `sha256`.
///   - path: The file.
///   - read: The pass's measurements.
func reportThroughput(_ name: String, path: String, _ read: ChunkedRead) {
  let total = seconds(read.totalTime)
  let body = seconds(read.bodyTime)
  let megabytes = Double(read.byteCount) / 1e6
  printError(
    "\(name): \(path): \(read.byteCount) bytes (\(format(megabytes, 1)) MB) in \(format(total, 3)) s: "
      + "\(format(megabytes / max(total, 1e-9), 1)) MB/s overall, "
      + "\(format(megabytes / max(body, 1e-9), 1)) MB/s excluding reads")
}

private func seconds(_ duration: Duration) -> Double {
  let (whole, attoseconds) = duration.components
  return Double(whole) + Double(attoseconds) * 1e-18
}

private func format(_ value: Double, _ decimals: Int) -> String {
  String(format: "%.\(decimals)f", value)
}

private func systemError(_ call: String) -> String {
  "\(call): \(String(cString: strerror(errno)))"
}
