import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Issue 21's findings, through the binaries: changes of different kinds made on two devices
/// before either synced all survive, merged field by field, and a conflict (only where both
/// changed one field) is seen and settled on every device.
@Suite struct MixedChangeSyncTests {
  private let views = SharedFolderViews()

  private func show(_ device: CLI, _ item: String = "Koleston 7/1") throws -> JSONValue {
    try device.run(["show", item, "--json"]).json()
  }

  /// Finding 1: notes edited here, restocked there; keeping either side used to lose the
  /// restock (10 instead of 12).
  @Test func anEditAndARestockBothSurviveOnBothDevices() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(pair, on: 10)
      #expect(try pair[0].run(["edit", "Koleston 7/1", "--notes", "top shelf"]).status == 0)
      #expect(try pair[1].run(["restock", "Koleston 7/1", "2"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      for device in pair {
        let item = try show(device)
        #expect(item["quantity"]?.integer == 12, "\(item)")
        #expect(item["fields"]?["notes"]?.text == "top shelf", "\(item)")
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  /// Finding 1, the long run: 15 rounds of a consume and a notes edit on one device against a
  /// restock on the other end equal on both, with every move counted and no conflict.
  @Test func fifteenRoundsOfConsumesAndNotesAgainstRestocksAddUp() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 20)
      for round in 1...15 {
        #expect(try pair[0].run(["consume", "Koleston 7/1"]).status == 0)
        #expect(try pair[0].run(["edit", "Koleston 7/1", "--notes", "round \(round)"]).status == 0)
        #expect(try pair[1].run(["restock", "Koleston 7/1", "2"]).status == 0)
        try views.sync(pair[0])
        try views.sync(pair[1])
      }
      for device in pair + pair { try views.sync(device) }
      for device in pair {
        let item = try show(device)
        #expect(item["quantity"]?.integer == 35, "20 - 15 + 30: \(item)")
        #expect(item["fields"]?["notes"]?.text == "round 15", "\(item)")
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  /// Finding 2, for the inventory: notes here, brand there.
  @Test func differentFieldsChangedOnTwoDevicesBothArriveOnBoth() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 5)
      #expect(try pair[0].run(["edit", "Koleston 7/1", "--notes", "top shelf"]).status == 0)
      #expect(try pair[1].run(["edit", "Koleston 7/1", "--brand", "Wella"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      for device in pair {
        let fields = try show(device)["fields"]
        #expect(fields?["notes"]?.text == "top shelf" && fields?["brand"]?.text == "Wella")
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  /// Finding 3: a conflict (both changed the notes) is recorded on both devices, with the
  /// same id and the field in dispute; one resolution settles it on both.
  @Test func aConflictIsSeenOnBothDevicesAndOneResolutionSettlesIt() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(pair, on: 5)
      #expect(try pair[0].run(["edit", "Koleston 7/1", "--notes", "mac"]).status == 0)
      #expect(try pair[1].run(["edit", "Koleston 7/1", "--notes", "iphone"]).status == 0)
      #expect(try pair[1].run(["restock", "Koleston 7/1", "3"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      let ids = try pair.map { try views.openConflicts($0).compactMap { $0["id"]?.text } }
      #expect(ids[0].count == 1 && ids[0] == ids[1], "\(ids)")
      #expect(try show(pair[0])["fields"]?["notes"]?.text == "mac", "each keeps its own row")
      #expect(try show(pair[1])["fields"]?["notes"]?.text == "iphone")
      let id = try #require(ids[0].first)
      let page = try pair[0].run(["conflicts", "show", id]).standardOutput
      #expect(page.contains("'notes'"), "the field in dispute is named: \(page)")
      #expect(try pair[0].run(["conflicts", "resolve", id, "--keep", "local"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      for device in pair {
        let item = try show(device)
        #expect(item["fields"]?["notes"]?.text == "mac", "\(item)")
        #expect(item["quantity"]?.integer == 8, "the restock stays: \(item)")
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }
}

/// Findings 2 and 4 on seed 000's meters, through `stash-meters`: a rename on one device and a
/// unit on the other both arrive, and the same meter paired (or the same legacy file
/// imported) on two devices agrees instead of conflicting.
@Suite struct MixedChangeMeterTests {
  private func meters(_ cli: CLI, _ home: String, _ arguments: [String]) throws -> Run {
    let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("stash-meters")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path))
    let path = cli.folder.appendingPathComponent(home).path
    return try CLI.Running(binary, ["--home", path] + arguments, environment: cli.environment)
      .finish()
  }

  private func pairOfDevices(_ cli: CLI) throws {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    for home in ["a", "b"] {
      #expect(try meters(cli, home, ["sync", "enable", cloud.path]).status == 0)
    }
  }

  private func syncBoth(_ cli: CLI, rounds: Int = 2) throws {
    for _ in 0..<rounds {
      for home in ["a", "b"] {
        let run = try meters(cli, home, ["sync"])
        #expect(run.status == 0, "\(run)")
      }
    }
  }

  @Test func aRenameHereAndAUnitThereBothArrive() throws {
    try withCLI { cli in
      try pairOfDevices(cli)
      #expect(try meters(cli, "a", ["pair", "AA:BB:CC:DD:EE:FF", "TC66C"]).status == 0)
      try syncBoth(cli)
      #expect(try meters(cli, "a", ["rename", "aa:bb:cc:dd:ee:ff", "Kitchen Meter"]).status == 0)
      #expect(try meters(cli, "b", ["unit", "aa:bb:cc:dd:ee:ff", "fahrenheit"]).status == 0)
      try syncBoth(cli)
      for home in ["a", "b"] {
        let list = try meters(cli, home, ["list"]).standardOutput
        #expect(list.contains("Kitchen Meter") && list.contains("fahrenheit"), "\(home): \(list)")
        let conflicts = try meters(cli, home, ["conflicts"]).standardOutput
        #expect(conflicts.isEmpty, "\(home): \(conflicts)")
      }
    }
  }

  /// `stash-meters` on `home` at another time than the tests' fixed clock.
  private func meters(_ cli: CLI, _ home: String, at now: Int, _ arguments: [String]) throws -> Run
  {
    var environment = cli.environment
    environment["STASH_NOW"] = "\(now)"
    let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("stash-meters")
    let path = cli.folder.appendingPathComponent(home).path
    return try CLI.Running(binary, ["--home", path] + arguments, environment: environment).finish()
  }

  @Test func theSameMeterPairedOnTwoDevicesAgrees() throws {
    try withCLI { cli in
      try pairOfDevices(cli)
      for (home, now) in [("a", 1_764_441_600), ("b", 1_764_441_700)] {
        let run = try meters(cli, home, at: now, ["pair", "AA:BB:CC:DD:EE:FF", "TC66C"])
        #expect(run.status == 0, "\(run)")
      }
      try syncBoth(cli)
      for home in ["a", "b"] {
        let conflicts = try meters(cli, home, ["conflicts"]).standardOutput
        #expect(conflicts.isEmpty, "\(home): \(conflicts)")
      }
    }
  }

  @Test func theSameLegacyFileImportedOnTwoDevicesAgrees() throws {
    try withCLI { cli in
      for home in ["a", "b"] {
        let folder = cli.folder.appendingPathComponent(home)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contentsOf: Fixtures.url("legacy/meter-key-value-store.json"))
          .write(to: folder.appendingPathComponent("legacy-key-value-store.json"))
      }
      // Each device imports it at its own first run, at its own time.
      #expect(try meters(cli, "a", at: 1_764_441_600, ["list"]).status == 0)
      #expect(try meters(cli, "b", at: 1_764_441_900, ["list"]).status == 0)
      try pairOfDevices(cli)
      try syncBoth(cli)
      for home in ["a", "b"] {
        let conflicts = try meters(cli, home, ["conflicts"])
        #expect(conflicts.status == 0 && conflicts.standardOutput.isEmpty, "\(home): \(conflicts)")
        let list = try meters(cli, home, ["list"]).standardOutput
        #expect(list.contains("Kitchen Meter"), "\(list)")
      }
    }
  }
}
