import Foundation
import StashTestSupport
import Testing

/// `stash-meters` parses its command line with `ArgumentParsing`, like `stash`: help,
/// usage mistakes with the `See '… --help'` line (exit 2), and its legacy import at the
/// first run.
@Suite struct MetersToolTests {
  private func meters(_ cli: CLI, _ arguments: [String]) throws -> Run {
    let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("stash-meters")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path))
    let home = cli.folder.appendingPathComponent("meters").path
    return try CLI.Running(binary, ["--home", home] + arguments, environment: cli.environment)
      .finish()
  }

  @Test func helpListsTheCommandsAndAMistakeIsAUsageError() throws {
    try withCLI { cli in
      let help = try meters(cli, ["--help"])
      #expect(help.status == 0 && help.standardOutput.contains("pair"), "\(help)")
      let unit = try meters(cli, ["unit", "aa:bb:cc:dd:ee:ff", "kelvin"])
      #expect(unit.status == 2, "\(unit)")
      #expect(unit.standardError.contains("See 'stash-meters unit --help'"), "\(unit)")
      let unknown = try meters(cli, ["pear", "aa:bb:cc:dd:ee:ff"])
      #expect(unknown.status == 2 && unknown.standardError.contains("Unknown command 'pear'"))
    }
  }

  @Test func pairRenameAndListWork() throws {
    try withCLI { cli in
      #expect(try meters(cli, ["pair", "AA-BB-CC-DD-EE-FF", "TC66C"]).status == 0)
      #expect(try meters(cli, ["rename", "aa:bb:cc:dd:ee:ff", "Kitchen"]).status == 0)
      #expect(try meters(cli, ["unit", "aabbccddeeff", "celsius"]).status == 0)
      let list = try meters(cli, ["list"])
      #expect(list.standardOutput.contains("Kitchen  TC66C  celsius"), "\(list)")
      let bad = try meters(cli, ["rename", "not-a-mac", "X"])
      #expect(bad.status == 1, "\(bad)")
    }
  }

  @Test func theLegacyKeyValueStoreImportsAtTheFirstRunOnce() throws {
    try withCLI { cli in
      let home = cli.folder.appendingPathComponent("meters")
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
      try Data(contentsOf: Fixtures.url("legacy/meter-key-value-store.json"))
        .write(to: home.appendingPathComponent("legacy-key-value-store.json"))
      let first = try meters(cli, ["list"])
      #expect(first.standardError.contains("Imported 2 meters from the legacy file"), "\(first)")
      #expect(first.standardOutput.contains("Kitchen Meter"), "\(first)")
      let second = try meters(cli, ["list"])
      #expect(second.standardError.isEmpty, "\(second)")
    }
  }
}
