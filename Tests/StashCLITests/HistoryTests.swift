import Foundation
import StashModel
import StashTestSupport
import Testing

/// `stash history` answers "who used the last tube, and when"; `stash undo` reverts this
/// device's last change as a change that travels.
@Suite struct HistoryTests {
  let views = SharedFolderViews()

  @Test func historyNamesTheDeviceAndWhatChanged() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      #expect(try devices[1].run(["consume", "Koleston 7/1"]).status == 0)
      try views.sync(devices[1])
      try views.sync(devices[0])
      let text = try devices[0].run(["history", "Koleston 7/1"]).standardOutput
      #expect(text.contains("this device   created: 5 tube"), "\(text)")
      #expect(text.contains("salon-iphone  quantity 5 → 4"), "\(text)")
      let json = try devices[0].run(["history", "Koleston 7/1", "--json"]).json()
      let events = json["events"]?.elements ?? []
      #expect(events.map { $0["kind"]?.text } == ["created", "edited"], "\(json)")
      #expect(events.last?["author"]?["name"]?.text == "salon-iphone")
      #expect(events.last?["at"]?.text == "2025-11-29T18:40:00.000Z")
      let change = events.last?["changes"]?.elements.first
      #expect(change?["field"]?.text == "quantity")
      #expect(events.allSatisfy { $0["synced"] == .bool(true) })
    }
  }

  @Test func historyShowsChangesNotSyncedYetAndWorksWithoutSync() throws {
    try withCLI { cli in
      try cli.run(["add", "Soap", "--quantity", "3"])
      try cli.run(["consume", "Soap"])
      try cli.run(["edit", "Soap", "--notes", "By the sink"])
      let text = try cli.run(["history", "Soap"]).standardOutput
      #expect(text.contains("quantity 3 → 2 (not synced yet)"), "\(text)")
      #expect(text.contains("notes edited (not synced yet)"), "\(text)")
      #expect(try cli.run(["history", "Nothing"]).status == 1)
    }
  }

  @Test func undoRevertsThisDevicesLastChangeAndItTravels() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      try devices[1].run(["consume", "Koleston 7/1", "2"])
      let undone = try devices[1].run(["undo", "Koleston 7/1"])
      #expect(undone.status == 0, "\(undone)")
      #expect(undone.standardOutput.contains("5 tube"), "\(undone)")
      try devices[0].run(["consume", "Koleston 7/1"])
      for device in devices + devices { try views.sync(device) }
      // The undo is a restock (a move): it adds up with the consume made elsewhere.
      #expect(try views.quantity(devices[0]) == 4)
      #expect(try views.quantity(devices[1]) == 4)
      #expect(try views.openConflicts(devices[0]).isEmpty)
    }
  }

  @Test func undoIsRefusedWhenThisDeviceNeverChangedTheItem() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      let before = devices[1].storeBytes()
      let run = try devices[1].run(["undo", "Koleston 7/1"])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("stash history"), "\(run)")
      #expect(devices[1].storeBytes() == before)
    }
  }
}
