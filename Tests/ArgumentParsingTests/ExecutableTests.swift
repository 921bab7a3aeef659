import Foundation
import StashTestSupport
import Testing

/// Runs the built `stash` binary, which `swift build` and `swift test` put in the same products
/// folder as the test runner.
@Suite struct ExecutableTests {
  struct Run {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  /// The products folder: `.build/<triple>/debug` (or `release`).
  ///
  /// On Linux the test runner is an executable in that folder; on macOS it is a bundle there
  /// loaded by a helper, as in swift-argument-parser's own tests.
  static var productsFolder: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
      }
    #endif
    return Bundle.main.bundleURL
  }

  static func stash(_ arguments: [String]) throws -> Run {
    let binary = productsFolder.appendingPathComponent("stash")
    try #require(
      FileManager.default.isExecutableFile(atPath: binary.path),
      "No 'stash' binary at \(binary.path); run 'swift build' first")
    // The golden help is laid out for 100 columns (a pipe gets 80 without COLUMNS).
    var environment = ProcessInfo.processInfo.environment
    environment["COLUMNS"] = "100"
    let child = try Subprocess(binary.path, arguments, environment: environment)
    let (status, output, errors) = child.wait()
    return Run(
      status: status, standardOutput: String(decoding: output, as: UTF8.self),
      standardError: String(decoding: errors, as: UTF8.self))
  }

  @Test func printsTheRootHelpWithStatusZero() throws {
    let run = try Self.stash(["--help"])
    #expect(run.status == 0)
    #expect(run.standardOutput.hasPrefix("OVERVIEW: "))
    #expect(run.standardOutput.contains("\nUSAGE: stash <subcommand>\n"))
    for name in ["init", "add", "list", "location", "reminder", "sync", "conflicts", "import"] {
      #expect(run.standardOutput.contains("\n  \(name) "), "no '\(name)' in the root help")
    }
    #expect(run.standardError.isEmpty)
  }

  @Test func printsTheVersion() throws {
    let run = try Self.stash(["--version"])
    #expect(run.status == 0)
    #expect(run.standardOutput == "stash 0.1.0\n")
  }

  @Test func printsTheGoldenHelpOfConsume() throws {
    let run = try Self.stash(["consume", "--help"])
    #expect(run.status == 0)
    #expect(run.standardOutput == Golden.consumeHelp + "\n")
  }

  @Test func refusesAnUnknownOptionWithStatusTwoAndAHelpHint() throws {
    let run = try Self.stash(["--bogus"])
    #expect(run.status == 2)
    #expect(run.standardOutput.isEmpty)
    #expect(run.standardError == "Unknown option '--bogus' for 'stash'\nSee 'stash --help'\n")
  }

  @Test func namesTheCommandInTheHelpHint() throws {
    let run = try Self.stash(["add", "Soap", "--quantty", "5"])
    #expect(run.status == 2)
    #expect(
      run.standardError
        == "Unknown option '--quantty' for 'stash add'; did you mean '--quantity'?\n"
        + "See 'stash add --help'\n")
  }

  @Test func printsTheHelpOfAGroupRunAloneOnStandardErrorWithStatusTwo() throws {
    let run = try Self.stash(["location"])
    #expect(run.status == 2)
    #expect(run.standardOutput.isEmpty)
    #expect(run.standardError.hasPrefix("OVERVIEW: Manage the places items are kept\n"))
    #expect(
      run.standardError.hasSuffix(
        "\n\nMissing subcommand for 'stash location'; use one of 'add', 'list', 'edit', "
          + "'delete'\nSee 'stash location --help'\n"))
  }

  @Test(arguments: [
    ["sync", "status"], ["reminder", "add"], ["conflicts", "resolve"], ["import"],
  ])
  func showsHelpAtEveryLevel(path: [String]) throws {
    let run = try Self.stash(path + ["-h"])
    #expect(run.status == 0)
    #expect(run.standardOutput.contains("\nUSAGE: stash \(path.joined(separator: " "))"))
    #expect(run.standardOutput.contains("\nEXAMPLES:\n  stash "))
  }

  @Test func givesEveryDeclaredCommandHelpWithExamples() throws {
    var pending: [[String]] = [[]]
    var seen = 0
    while let path = pending.popLast() {
      let run = try Self.stash(path + ["--help"])
      #expect(run.status == 0, "\(path)")
      #expect(run.standardOutput.contains("\n\nEXAMPLES:\n  stash "), "no examples for \(path)")
      seen += 1
      let sections = run.standardOutput.components(separatedBy: "\n\n")
      guard let list = sections.first(where: { $0.hasPrefix("SUBCOMMANDS:\n") }) else { continue }
      // A subcommand's line starts with two spaces; a wrapped abstract goes on under it, further
      // in (taking its first word for a subcommand would crawl without end).
      for line in list.split(separator: "\n").dropFirst() where !line.hasPrefix("   ") {
        let name = line.split(separator: " ")[0]
        pending.append(path + [String(name)])
      }
    }
    #expect(seen == 36)  // stash, 18 commands, 4 location, 3 reminder, 8 sync, 2 conflicts
  }
}
