import Foundation
import StashTestSupport

/// One lane of the fuzz run: its own sandbox, its share of the seeds, run one after another
/// on a thread of its own (so lanes overlap while each waits for its child process, whatever
/// the size of Swift Testing's thread pool).
struct FuzzLane {
  /// What a lane found, handed back to the test to record.
  struct Result: Sendable {
    var statuses: [Int32: Int] = [:]
    var failures: [String] = []
    var failureCount = 0
    var known: [(owner: String, report: String)] = []
    var seconds = 0.0
    var cases = 0
    var setupError: String?
  }

  /// Failing cases shown in full per lane; the rest are counted.
  static let shownFailures = 12

  let number: Int
  let seeds: [UInt64]
  let catalog: FuzzCatalog

  /// Runs every seed and returns what it found (never throws: a setup problem is reported).
  func run() -> Result {
    var result = Result()
    do {
      try withTemporaryFolder { folder in
        let sandbox = try FuzzSandbox(root: folder.path + "/root", scratch: folder.path + "/out")
        let log = CaseLog(lane: number)
        let started = Date()
        for seed in seeds {
          try runCase(seed, in: sandbox, log: log, into: &result)
        }
        result.seconds = Date().timeIntervalSince(started)
      }
    } catch {
      result.setupError = "\(error)"
    }
    return result
  }

  private func runCase(
    _ seed: UInt64, in sandbox: FuzzSandbox, log: CaseLog?, into result: inout Result
  ) throws {
    let fuzz = FuzzCase(seed: seed, catalog: catalog, sandbox: sandbox)
    let launched = Date()
    var variables = fuzz.environment
    variables["PATH"] = "/usr/bin:/bin"
    let outcome = try BoundedProcess.run(
      CLI.binary.path, arguments: fuzz.arguments.map(\.raw),
      environment: variables.sorted { $0.key < $1.key }.map {
        Array("\($0.key)=".utf8) + $0.value.raw
      },
      in: sandbox.workingFolder, scratch: sandbox.scratch, timeout: RawCLI.timeout)
    let after = FolderSnapshot(of: sandbox.root)
    let problems = FuzzOracle.problems(
      of: outcome, for: fuzz, before: sandbox.pristine, after: after, sandbox: sandbox)
    log?.write(fuzz, outcome, seconds: Date().timeIntervalSince(launched))
    result.cases += 1
    result.statuses[outcome.status, default: 0] += 1
    if !problems.isEmpty {
      let report = """
        \(problems.joined(separator: "; "))
        \(fuzz)
        \(outcome)
        Replay: STASH_SEED=\(seed) swift test --filter FuzzTests
        """
      if let owner = FuzzKnownIssues.owner(of: problems, in: fuzz) {
        result.known.append((owner, report))
      } else {
        result.failureCount += 1
        if result.failures.count < Self.shownFailures { result.failures.append(report) }
      }
    }
    if after != sandbox.pristine {
      let trouble = sandbox.restore()
      guard trouble.isEmpty else {
        throw FuzzCatalog.CatalogError(description: "cannot restore the sandbox: \(trouble)")
      }
    }
  }

  /// `STASH_FUZZ_LOG=<folder>` writes one line per case (seed, seconds, exit, command, intact,
  /// first line of standard error, arguments) to `<folder>/lane-<n>.log`, to see what the
  /// cases reach.
  final class CaseLog {
    let file: FileHandle

    init?(lane: Int) {
      guard let folder = ProcessInfo.processInfo.environment["STASH_FUZZ_LOG"] else { return nil }
      let path = folder + "/lane-\(lane).log"
      _ = FileManager.default.createFile(atPath: path, contents: nil)
      guard let file = FileHandle(forWritingAtPath: path) else { return nil }
      self.file = file
    }

    func write(_ fuzz: FuzzCase, _ outcome: BoundedProcess.Outcome, seconds: Double) {
      let first = String(decoding: outcome.error, as: UTF8.self).split(separator: "\n").first ?? ""
      let arguments = fuzz.arguments.map(\.description).joined(separator: " ").prefix(300)
      let fields = [
        "\(fuzz.seed)", String(format: "%.3f", seconds), "\(outcome.status)", "\(fuzz.command)",
        "\(fuzz.isIntact)", String(first.prefix(160)), String(arguments),
      ]
      file.write(Data((fields.joined(separator: "\t") + "\n").utf8))
    }
  }
}
