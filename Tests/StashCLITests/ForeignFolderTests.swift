import Foundation
import StashTestSupport
import Testing

/// Every command of `stash` on a folder `stash-meters` made, and every command of
/// `stash-meters` on an inventory, refuses with exit 1, naming the models it found, and
/// changes no byte (issue 24, item 1): unknown is not damaged, so `doctor --repair` moves
/// nothing.
@Suite struct ForeignFolderTests {
  private static let stashCommands: [[String]] = [
    ["init"], ["add", "Tube"], ["list"], ["--json", "list"], ["show", "Tube"],
    ["consume", "Tube"], ["restock", "Tube", "2"], ["delete", "Tube"],
    ["edit", "Tube", "--unit", "box"], ["duplicate", "Tube"], ["location", "list"],
    ["location", "add", "Shelf"], ["reminder", "list"], ["sync"], ["sync", "status"],
    ["sync", "verify"], ["conflicts"], ["doctor"], ["doctor", "--repair"],
    ["export", "--format", "csv"], ["import", "--format", "csv", "items.csv"],
    ["history", "Tube"], ["undo", "Tube"],
  ]

  private static let meterCommands: [[String]] = [
    ["list"], ["pair", "AA:BB:CC:DD:EE:01"], ["rename", "aa:bb:cc:dd:ee:ff", "X"],
    ["unit", "aa:bb:cc:dd:ee:ff", "celsius"], ["connect", "aa:bb:cc:dd:ee:ff"],
    ["disconnect", "aa:bb:cc:dd:ee:ff"], ["seen", "aa:bb:cc:dd:ee:ff"],
    ["forget", "aa:bb:cc:dd:ee:ff"], ["sync"], ["conflicts"],
  ]

  private func meters(_ cli: CLI, home: URL, _ arguments: [String]) throws -> Run {
    let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("stash-meters")
    return try CLI.Running(binary, ["--home", home.path] + arguments, environment: cli.environment)
      .finish()
  }

  @Test(arguments: [false, true])
  func stashRefusesAMeterFolder(withConflict: Bool) throws {
    try withCLI { cli in
      if withConflict {
        // Made before folders recorded their models: a conflict line of a 'meter' in the store.
        try FileManager.default.copyItem(
          at: Fixtures.url("formats/meters-before-schemas"), to: cli.home)
      } else {
        #expect(
          try meters(cli, home: cli.home, ["pair", "AA:BB:CC:DD:EE:FF", "UM25C"]).status == 0)
      }
      try Data("name,quantity\nTube,3\n".utf8).write(
        to: cli.folder.appendingPathComponent("items.csv"))
      let before = FolderSnapshot(of: cli.home.path)
      for command in Self.stashCommands {
        let csv = cli.folder.appendingPathComponent("items.csv").path
        let run = try cli.run(command.map { $0 == "items.csv" ? csv : $0 })
        #expect(run.status == 1, "\(command): \(run)")
        #expect(
          run.standardError.contains("belongs to another tool: it holds the models 'meter', "),
          "\(command): \(run)")
        #expect(
          FolderSnapshot(of: cli.home.path).differences(from: before) == [], "\(command)")
      }
    }
  }

  @Test func stashMetersRefusesAnInventory() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Tube", "--quantity", "3"]).status == 0)
      let before = FolderSnapshot(of: cli.home.path)
      for command in Self.meterCommands {
        let run = try meters(cli, home: cli.home, command)
        #expect(run.status == 1, "\(command): \(run)")
        #expect(
          run.standardError.contains(
            "belongs to another tool: it holds the models 'item', 'location', 'reminder'"),
          "\(command): \(run)")
        #expect(
          FolderSnapshot(of: cli.home.path).differences(from: before) == [], "\(command)")
      }
    }
  }
}
