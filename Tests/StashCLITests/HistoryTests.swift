import Foundation
import StashBase
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

  /// The kind, author name and time of every event of `item`'s history on `device`.
  private func events(_ device: CLI, _ item: String = "Koleston 7/1") throws -> [JSONValue] {
    let run = try device.run(["history", item, "--json"])
    #expect(run.status == 0, "\(run)")
    return try run.json()["events"]?.elements ?? []
  }

  @Test func historyShowsAMergeOfStockMovesWithTheDeviceAndTime() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      try devices[0].run(["consume", "Koleston 7/1"])
      try devices[1].run(["consume", "Koleston 7/1"])
      try views.sync(devices[0])
      // salon-iphone merges the two moves, an hour later.
      let later = Int(epoch.secondsSince1970) + 3600
      #expect(try devices[1].shell("STASH_NOW=\(later) \"$0\" sync").status == 0)
      try views.sync(devices[0])
      #expect(try views.quantity(devices[0]) == 3)
      for device in devices {
        let merged = try events(device).filter { $0["kind"]?.text == "merged" }
        #expect(merged.count == 1, "\(merged)")
        #expect(merged.first?["author"]?["name"]?.text != nil)
        #expect(merged.first?["synced"] == .bool(true))
        let text = try device.run(["history", "Koleston 7/1"]).standardOutput
        #expect(text.contains("merged: quantity"), "\(text)")
      }
      // Both sides name the device that merged; the one that did calls itself this device.
      let onMac = try events(devices[0]).first { $0["kind"]?.text == "merged" }
      #expect(onMac?["author"]?["name"]?.text == "salon-iphone", "\(String(describing: onMac))")
      #expect(onMac?["at"]?.text == "2025-11-29T19:40:00.000Z", "\(String(describing: onMac))")
      let macText = try devices[0].run(["history", "Koleston 7/1"]).standardOutput
      #expect(
        macText.contains("2025-11-29 19:40:00 +00:00  salon-iphone  merged: quantity"),
        "\(macText)")
      let onPhone = try events(devices[1]).first { $0["kind"]?.text == "merged" }
      #expect(onPhone?["author"]?["name"]?.text == "this device")
      // This device's own consume went out on its own, before the merge (every side of a
      // merge is in the shared graph, so every device computes the same merge).
      let phoneText = try devices[1].run(["history", "Koleston 7/1"]).standardOutput
      #expect(
        phoneText.contains("19:40:00 +00:00  this device  quantity 5 → 4"), "\(phoneText)")
      #expect(!phoneText.contains("not synced yet"), "\(phoneText)")
      let own = try events(devices[1]).filter {
        $0["kind"]?.text == "edited" && $0["author"]?["name"]?.text == "this device"
      }
      #expect(own.count == 1 && own.first?["synced"] == .bool(true), "\(own)")
    }
  }

  @Test func historyShowsAResolvedConflictWithTheDeviceAndTime() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(devices, on: 5)
      try devices[0].run(["edit", "Koleston 7/1", "--notes", "Top shelf"])
      try devices[1].run(["edit", "Koleston 7/1", "--notes", "Bottom shelf"])
      try views.sync(devices[0])
      try views.sync(devices[1])
      let open = try views.openConflicts(devices[1])
      let id = try #require(open.first?["id"]?.text, "\(open)")
      // Resolved on salon-iphone two hours later, keeping salon-mac's notes.
      let later = Int(epoch.secondsSince1970) + 7200
      let resolve = try devices[1].shell(
        "STASH_NOW=\(later) \"$0\" conflicts resolve \(id) --keep mirror")
      #expect(resolve.status == 0, "\(resolve)")
      for device in [devices[1], devices[0], devices[1]] { try views.sync(device) }
      for device in devices {
        #expect(try views.openConflicts(device).isEmpty)
        let resolved = try events(device).filter { $0["kind"]?.text == "resolved" }
        #expect(resolved.count == 1, "\(resolved)")
        #expect(resolved.first?["at"]?.text == "2025-11-29T20:40:00.000Z")
        #expect(resolved.first?["synced"] == .bool(true))
      }
      let onMac = try events(devices[0]).first { $0["kind"]?.text == "resolved" }
      #expect(onMac?["author"]?["name"]?.text == "salon-iphone", "\(String(describing: onMac))")
      let macText = try devices[0].run(["history", "Koleston 7/1"]).standardOutput
      #expect(
        macText.contains("2025-11-29 20:40:00 +00:00  salon-iphone  resolved:"), "\(macText)")
      let phoneText = try devices[1].run(["history", "Koleston 7/1"]).standardOutput
      // The resolution took the other side's notes only (the field in dispute): no recount.
      #expect(
        phoneText.contains(
          "2025-11-29 20:40:00 +00:00  this device  resolved: notes edited"),
        "\(phoneText)")
      #expect(!phoneText.contains("recounted"), "\(phoneText)")
      // The edit this device lost went out before the conflict was noticed: it is history.
      #expect(!phoneText.contains("not synced yet"), "\(phoneText)")
    }
  }
}
