import StashBase
import StashModel

/// `stash-bench crc32 FILE...`: checksums each file with CRC-32 and reports throughput.
///
/// Prints `<8 lowercase hex digits>  FILE` on standard output for each file (the value of
/// Python's `zlib.crc32` over the whole file), and the size and throughput on standard
/// error.
///
/// - Parameter arguments: The file paths.
/// - Returns: 0 on success, 1 if a file could not be read, 2 without any file.
@Sendable
func crc32Benchmark(_ arguments: [String]) -> Int32 {
  guard !arguments.isEmpty else {
    printError("usage: stash-bench crc32 FILE...")
    return 2
  }
  var status: Int32 = 0
  for path in arguments {
    var crc: UInt32 = 0
    do {
      let pass = try readChunks(of: path) { crc = CRC32.checksum($0, continuing: crc) }
      let hex = String(crc, radix: 16)
      print("\(String(repeating: "0", count: 8 - hex.count))\(hex)  \(path)")
      reportThroughput("crc32", path: path, pass)
    } catch {
      printError("stash-bench: \(error)")
      status = 1
    }
  }
  return status
}
