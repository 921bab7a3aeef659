import Foundation

/// The `stash-bench` tool: runs the benchmark named by its first argument.
///
/// Each subcommand lives in its own file as one function that takes the remaining
/// arguments and returns the exit status; add a benchmark by adding a ``BenchCommand`` to
/// ``StashBench/commands``. An unknown or missing subcommand prints the usage on stderr
/// and exits with status 2.
@main
enum StashBench {
  /// Every subcommand, in the order the usage lists them.
  static let commands: [BenchCommand] = [
    BenchCommand(
      name: "sha256", arguments: "FILE...",
      summary: "SHA-256 of each file, printed like sha256sum; throughput on stderr",
      run: sha256Benchmark),
    BenchCommand(
      name: "crc32", arguments: "FILE...",
      summary: "CRC-32 (zlib) of each file as 8 hex digits; throughput on stderr",
      run: crc32Benchmark),
    BenchCommand(
      name: "aead", arguments: "[--size BYTES] [--runs N] [--seconds S]",
      summary: "our ChaCha20-Poly1305 beside 'openssl speed -aead -evp chacha20-poly1305'",
      run: aeadBenchmark),
    BenchCommand(
      name: "store", arguments: "N DIR [--synced]",
      summary: "make a device folder with N items (and an agreeing mirror with --synced)",
      run: makeStoreBenchmark),
    BenchCommand(
      name: "open", arguments: "DIR",
      summary: "time to open a device folder, peak memory, and Python's json on the same file",
      run: openBenchmark),
    BenchCommand(
      name: "consume", arguments: "DIR ITEM [RUNS]",
      summary: "'stash consume' end to end (process start to exit)",
      run: consumeBenchmark),
    BenchCommand(
      name: "targets",
      arguments: "[--size 1k|10k|100k|1M] [--runs N] [--dir DIR] [--only GROUP] [--json]",
      summary: "every speed target of DESIGN.md: ours and the peer (sqlite3, jq, python3 csv, "
        + "ours at 1k) interleaved; medians of wall and CPU time, peak memory, the ratio",
      run: targetsBenchmark),
    BenchCommand(
      name: "encrypted-sync", arguments: "[--size N] [--runs N] [--dir DIR] [--json]",
      summary: "first sync and second device's import, plain and encrypted, A/B interleaved",
      run: encryptedSyncBenchmark),
    BenchCommand(
      name: "transaction", arguments: "[--fights N] [--runs N] [--dir DIR]",
      summary: "seed 003's 3,900 scorecard records in one write { tx in } beside saveOnce",
      run: transactionBenchmark),
    BenchCommand(
      name: "reconcile", arguments: "DIR",
      summary: "a pass with nothing to do, and passes after one edit (DIR made --synced)",
      run: reconcileBenchmark),
    BenchCommand(
      name: "digest", arguments: "DIR",
      summary: "the sync status digest: from the rows, from the local index's section, after edits",
      run: digestBenchmark),
    BenchCommand(
      name: "mirror-open", arguments: "DIR",
      summary: "the mirror opened whole (writing its index, then not) and focused through it",
      run: mirrorOpenBenchmark),
    BenchCommand(
      name: "live", arguments: "[--size N] [--interval S] [--runs N] [--idle S] [--dir DIR]",
      summary: "two devices with 'stash sync --watch': consume on one to the other holding it; "
        + "idle CPU",
      run: liveBenchmark),
    BenchCommand(
      name: "query", arguments: "[--fights N] [--runs N] [--dir DIR]",
      summary: "one fight's 12 rounds asked by a fresh process: through the index, and read whole",
      run: queryBenchmark),
  ]

  /// Dispatches to the subcommand named by the first argument and exits with its status.
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let first = arguments.first, ["--help", "-h", "help"].contains(first) {
      print(usage)
      exit(0)
    }
    guard let name = arguments.first, let command = commands.first(where: { $0.name == name })
    else {
      if let name = arguments.first {
        printError("stash-bench: unknown subcommand '\(name)'")
      }
      printError(usage)
      exit(2)
    }
    let status = command.run(Array(arguments.dropFirst()))
    removeChildErrorLogUnlessNeeded()
    exit(status)
  }

  /// The usage text listing every subcommand.
  static var usage: String {
    let width = commands.map { $0.name.count + $0.arguments.count + 1 }.max() ?? 0
    var lines = ["usage: stash-bench <subcommand> [arguments]", "", "subcommands:"]
    for command in commands {
      let head = "\(command.name) \(command.arguments)"
      if head.count > 40 {
        lines.append("  \(head)")
        lines.append("  " + String(repeating: " ", count: 40) + "  \(command.summary)")
        continue
      }
      let padding = String(repeating: " ", count: min(width, 40) - head.count)
      lines.append("  \(head)\(padding)  \(command.summary)")
    }
    lines += [
      "",
      "Build with 'swift build -c release --static-swift-stdlib' first (on Linux). 'stash-bench",
      "targets --size 100k' makes its folder in /tmp/stash-bench-100k (reused by later runs) and",
      "prints a table with the load average; --only one-record|list|import|sync runs one group;",
      "--json prints the same figures as JSON. Figures vary from run to run on a busy machine.",
    ]
    return lines.joined(separator: "\n")
  }
}

/// One `stash-bench` subcommand.
struct BenchCommand: Sendable {
  /// The word that selects it, such as `sha256`.
  let name: String
  /// Its arguments as the usage shows them, such as `FILE...`.
  let arguments: String
  /// One line saying what it measures.
  let summary: String
  /// Runs it with the arguments after its name and returns the exit status.
  let run: @Sendable ([String]) -> Int32
}

/// Writes one line to standard error.
///
/// - Parameter message: The line, without its newline.
func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}
