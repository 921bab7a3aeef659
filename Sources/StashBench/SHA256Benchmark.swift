import StashBase
import StashModel

/// `stash-bench sha256 FILE...`: hashes each file like `sha256sum` and reports throughput.
///
/// Prints `<64 hex digits>  FILE` on standard output for each file (two spaces, as
/// coreutils does; names are printed as given, without coreutils' escaping), and the size
/// and throughput on standard error.
///
/// - Parameter arguments: The file paths.
/// - Returns: 0 on success, 1 if a file could not be read, 2 without any file.
@Sendable
func sha256Benchmark(_ arguments: [String]) -> Int32 {
  guard !arguments.isEmpty else {
    printError("usage: stash-bench sha256 FILE...")
    return 2
  }
  var status: Int32 = 0
  for path in arguments {
    var hasher = SHA256()
    do {
      let pass = try readChunks(of: path) { hasher.update($0) }
      print("\(hasher.finalize())  \(path)")
      reportThroughput("sha256", path: path, pass)
    } catch {
      printError("stash-bench: \(error)")
      status = 1
    }
  }
  return status
}
