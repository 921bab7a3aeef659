import Foundation
import Stash
import StashBase
import StashModel
import Testing

/// The commands a newcomer runs, in order, checked through their text and JSON output and
/// against the library's view of the same folder.
@Suite struct TourTests {
  /// Runs a command that must succeed and returns its output.
  @discardableResult
  private func ok(_ cli: CLI, _ arguments: [String]) throws -> Run {
    let run = try cli.run(arguments)
    #expect(run.status == 0, "stash \(arguments.joined(separator: " ")): \(run)")
    return run
  }

  @Test func aNewcomersTourThroughItemsLocationsAndReminders() throws {
    try withCLI { cli in
      let initRun = try ok(cli, ["init", "--name", "salon"])
      #expect(initRun.standardOutput.contains("for device 'salon'"))
      let again = try ok(cli, ["init", "--name", "other"])
      #expect(again.standardOutput.contains("nothing was changed"))
      #expect(try cli.device().folder.settings.name == "salon")

      try ok(cli, ["location", "add", "bathroom"])
      try ok(
        cli,
        [
          "location", "add", "shop", "--latitude", "52.3702", "--longitude", "4.8952",
          "--radius", "150",
        ])
      let photo = try cli.photo()
      let added = try ok(
        cli,
        [
          "add", "Koleston 7/1", "--quantity", "5", "--unit", "tube", "--brand", "Wella",
          "--location", "bathroom", "--low-stock", "2", "--photo", photo, "--json",
        ])
      let addedItem = try added.json()
      #expect(addedItem["quantity"]?.integer == 5)
      #expect(addedItem["location"]?["name"]?.text == "bathroom")
      try ok(cli, ["add", "AA batteries", "--quantity", "12", "--unit", "battery"])

      let table = try ok(cli, ["list"]).standardOutput
      #expect(table.hasPrefix("ID  "))
      #expect(table.contains("Koleston 7/1"))
      #expect(table.contains("bathroom"))

      let consumed = try ok(cli, ["consume", "koleston 7/1", "3"]).standardOutput
      #expect(consumed.contains("2 tube"))
      #expect(consumed.contains("low on stock"))
      let low = try ok(cli, ["list", "--low-stock", "--json"]).json().elements
      #expect(low.map { $0["fields"]?["name"]?.text } == ["Koleston 7/1"])
      #expect(low.first?["lowOnStock"] == .bool(true))

      try ok(cli, ["restock", "Koleston 7/1", "4"])
      try ok(cli, ["edit", "AA batteries", "--brand", "Varta", "--location", "shop"])
      try ok(cli, ["duplicate", "AA batteries", "--name", "AAA batteries"])
      try ok(cli, ["delete", "AAA batteries"])

      let items = try ok(cli, ["list", "--json"]).json().elements
      #expect(items.count == 2)
      let byName = Dictionary(
        uniqueKeysWithValues: items.map { ($0["fields"]?["name"]?.text ?? "", $0) })
      #expect(byName["Koleston 7/1"]?["quantity"]?.integer == 6)
      #expect(byName["AA batteries"]?["fields"]?["brand"]?.text == "Varta")
      #expect(byName["AA batteries"]?["location"]?["name"]?.text == "shop")

      // show --json: the record exactly as stored, and the library's hash of it.
      let shown = try ok(cli, ["show", "Koleston 7/1", "--json"]).json()
      let library = try cli.device(create: false).item("Koleston 7/1")
      #expect(shown["hash"]?.text == library.record.snapshotHash.hex)
      #expect(shown["id"]?.text == library.id.rawValue)
      #expect(shown["model"]?.text == "item")
      #expect(shown["fields"] == .object(library.record.fieldsJSON()))
      #expect(shown["fields"]?["photo"]?["size"]?.integer == 2048)
      let page = try ok(cli, ["show", "Koleston 7/1"]).standardOutput
      #expect(page.contains(library.record.snapshotHash.hex))
      #expect(page.contains("Wella"))

      try ok(cli, ["location", "edit", "shop", "--radius", "200", "--notes", "Corner"])
      let locations = try ok(cli, ["location", "list", "--json"]).json().elements
      #expect(locations.map { $0["fields"]?["name"]?.text } == ["bathroom", "shop"])
      #expect(locations.last?["fields"]?["radius"] == .double(200))
      #expect(locations.first?["items"]?.integer == 1)

      let reminder = try ok(
        cli,
        [
          "reminder", "add", "--location", "shop", "--item", "AA batteries", "--message",
          "Buy batteries", "--trigger", "leave", "--json",
        ]
      ).json()
      let reminderID = try #require(reminder["id"]?.text)
      let reminders = try ok(cli, ["reminder", "list", "--json"]).json().elements
      #expect(reminders.count == 1)
      #expect(reminders.first?["fields"]?["trigger"]?.text == "leave")
      #expect(reminders.first?["item"]?["name"]?.text == "AA batteries")
      try ok(cli, ["reminder", "delete", String(reminderID.prefix(6))])
      #expect(try ok(cli, ["reminder", "list", "--json"]).json().elements.isEmpty)

      // Deleting a location leaves its items pointing at it, shown as missing.
      try ok(cli, ["location", "delete", "bathroom"])
      let after = try ok(cli, ["show", "Koleston 7/1", "--json"]).json()
      #expect(after["location"]?["missing"] == .bool(true))
      #expect(try ok(cli, ["list"]).standardOutput.contains("(missing)"))
      let doctor = try ok(cli, ["doctor", "--json"]).json()
      #expect(doctor["damaged"] == .bool(false))
      #expect(doctor["items"]?.integer == 2)
    }
  }

  @Test func readingCommandsOnAFolderWithoutAStoreShowNothingAndCreateNothing() throws {
    try withCLI { cli in
      for arguments in [
        ["list"], ["location", "list"], ["reminder", "list"], ["conflicts"], ["doctor"],
      ] {
        let run = try ok(cli, arguments)
        #expect(run.standardError.isEmpty)
        #expect(!run.standardOutput.isEmpty)
        let json = try ok(cli, arguments + ["--json"]).json()
        if arguments != ["doctor"] { #expect(json == .array([])) }
      }
      #expect(!FileManager.default.fileExists(atPath: cli.home.path))
    }
  }

  @Test func theFirstWriteCreatesTheFolder() throws {
    try withCLI { cli in
      let run = try ok(cli, ["add", "Soap", "--quantity", "3"])
      #expect(run.standardError.contains("Created the device folder"))
      #expect(try cli.device(create: false).item("Soap").quantity == 3)
      #expect(try cli.device(create: false).item("Soap").createdAt == epoch)
    }
  }

  @Test func everyCommandHasHelpWithAnExample() throws {
    let paths: [[String]] = [
      ["init"], ["add"], ["list"], ["show"], ["consume"], ["restock"], ["edit"],
      ["duplicate"], ["delete"], ["location", "add"], ["location", "list"],
      ["location", "edit"], ["location", "delete"], ["reminder", "add"], ["reminder", "list"],
      ["reminder", "delete"], ["conflicts"], ["conflicts", "show"], ["conflicts", "resolve"],
      ["doctor"],
    ]
    try withCLI { cli in
      for path in paths {
        let run = try ok(cli, path + ["--help"])
        #expect(run.standardOutput.contains("\nEXAMPLES:\n  stash \(path[0])"), "\(path)")
      }
    }
  }
}
