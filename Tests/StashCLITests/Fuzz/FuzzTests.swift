import Foundation
import StashTestSupport
import Testing

/// Argument and environment fuzzing (issue 11, item 6): thousands of seeded command lines
/// and environments, each run as a fresh `stash` process, and checked by ``FuzzOracle``.
///
/// Cases are seeds `0..<STASH_FUZZ_CASES` (5,000 by default), split over four lanes that run
/// in parallel, each in a sandbox of its own that is restored after a case changes it.
/// `STASH_SEED=<seed>` replays one case; every failure prints its seed and the line to run.
@Suite struct FuzzTests {
  static let defaultCases = 5_000
  static let lanes = 4

  /// The seeds this run covers.
  static var seeds: [UInt64] {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment["STASH_SEED"], let seed = UInt64(text) { return [seed] }
    let count = environment["STASH_FUZZ_CASES"].flatMap { Int($0) }.map { max($0, 1) }
    return (0..<UInt64(count ?? defaultCases)).map { $0 }
  }

  @Test func everyCaseEndsCleanlyWithTheDocumentedStatus() throws {
    let catalog = try FuzzCatalog.shared.get()
    let seeds = Self.seeds
    print(
      "FuzzTests: \(seeds.count) cases (seeds \(seeds[0])...\(seeds.last!)) in \(Self.lanes) "
        + "lanes; replay one with 'STASH_SEED=<seed> swift test --filter FuzzTests', run more "
        + "with STASH_FUZZ_CASES=<n>")
    let results = LockedBox([Int: FuzzLane.Result]())
    let group = DispatchGroup()
    for number in 0..<Self.lanes {
      let lane = FuzzLane(
        number: number, seeds: seeds.filter { Int($0 % UInt64(Self.lanes)) == number },
        catalog: catalog)
      group.enter()
      Thread.detachNewThread {
        let result = lane.run()
        results.withLock { $0[number] = result }
        group.leave()
      }
    }
    group.wait()
    for (number, result) in results.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
      if let setupError = result.setupError { Issue.record("Lane \(number): \(setupError)") }
      for report in result.failures { Issue.record("\(report)") }
      if result.failureCount > result.failures.count {
        Issue.record(
          "Lane \(number): \(result.failureCount - result.failures.count) more failing cases")
      }
      for (owner, report) in result.known {
        withKnownIssue(Comment(rawValue: owner), isIntermittent: true) {
          Issue.record("\(report)")
        }
      }
      let statuses = result.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
      print(
        "FuzzTests lane \(number): \(result.cases) cases in "
          + "\(String(format: "%.1f", result.seconds)) s, exits \(statuses), "
          + "\(result.failureCount) failing, \(result.known.count) known issues")
    }
  }

  @Test func theCasesCoverTheWholeCommandTableAndEveryKindOfInput() throws {
    let catalog = try FuzzCatalog.shared.get()
    #expect(catalog.commands.count >= 29, "\(catalog.commands)")
    #expect(catalog.commands.filter(\.runs).count >= 26)
    try withTemporaryFolder { folder in
      let sandbox = try FuzzSandbox(root: folder.path + "/root", scratch: folder.path + "/out")
      let cases = (0..<UInt64(Self.defaultCases)).map {
        FuzzCase(seed: $0, catalog: catalog, sandbox: sandbox)
      }
      let covered = Set(cases.map(\.command.path))
      for command in catalog.commands {
        #expect(covered.contains(command.path), "no case runs '\(command)'")
      }
      let sources = Set(cases.map(\.source.rawValue))
      #expect(sources.count == 5, "\(sources)")
      #expect(cases.filter { !FuzzValues.isUsableClock($0.environment["STASH_NOW"]) }.count > 300)
      #expect(cases.filter { $0.arguments.contains { $0.text == nil } }.count > 100)
      #expect(
        cases.filter { $0.home.map { FuzzOracle.unusable($0, sandbox: sandbox) != nil } ?? false }
          .count > 400)
      #expect(cases.filter(\.isIntact).count > 1_000)
    }
  }
}
