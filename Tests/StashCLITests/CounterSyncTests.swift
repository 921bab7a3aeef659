import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Stock moves that add up across devices, and conflicts a person can act on, through the
/// binary on devices that share one folder (as the README's walkthrough sets them up).
@Suite struct CounterSyncTests {
  private let views = SharedFolderViews()
  @Test func fiveTubesAndOneUsedOnEachDeviceEndAtThreeOnBothWithNothingToResolve() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(pair, on: 5)
      for device in pair { #expect(try device.run(["consume", "Koleston 7/1"]).status == 0) }
      for device in pair + pair { try views.sync(device) }
      for device in pair {
        #expect(try views.quantity(device) == 3)
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  @Test func aConsumeAndARestockOnTwoDevicesAddUp() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 10)
      #expect(try pair[0].run(["consume", "Koleston 7/1", "2"]).status == 0)
      #expect(try pair[1].run(["restock", "Koleston 7/1", "5"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      #expect(try pair.map { try views.quantity($0) } == [13, 13])
    }
  }

  @Test func threeDevicesEachUsingOneOfFiveShowTwo() throws {
    try withCLI { cli in
      let three = try views.devices(cli, ["a", "b", "c"])
      try views.agree(three, on: 5)
      for device in three { #expect(try device.run(["consume", "Koleston 7/1"]).status == 0) }
      for device in three + three + three { try views.sync(device) }
      for device in three {
        #expect(try views.quantity(device) == 2)
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  @Test func moreUsedThanThereWasIsABelowZeroConflictEachDeviceKeepingItsOwn() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(pair, on: 2)
      #expect(try pair[0].run(["consume", "Koleston 7/1", "2"]).status == 0)
      #expect(try pair[1].run(["consume", "Koleston 7/1"]).status == 0)
      try views.sync(pair[0])
      try views.sync(pair[1])
      #expect(
        try views.quantity(pair[0]) == 0 && views.quantity(pair[1]) == 1, "each keeps its own row")
      let conflict = try #require(try views.openConflicts(pair[1]).first)
      #expect(conflict["kind"]?.text == "below-zero")
      let id = try #require(conflict["id"]?.text)
      let page = try pair[1].run(["conflicts", "show", id]).standardOutput
      #expect(page.contains("Below zero: 3 used, 2 were there"), "\(page)")
      let table = try pair[1].run(["conflicts"]).standardOutput
      #expect(table.contains("this device") && table.contains("salon-mac"), "\(table)")
      #expect(!table.contains(try #require(conflict["sides"]?.elements.last?["author"]?.text)))
      // Counting the shelf settles it, on both devices.
      #expect(try pair[1].run(["conflicts", "resolve", id, "--keep", "local"]).status == 0)
      for device in pair + pair { try views.sync(device) }
      #expect(try pair.map { try views.quantity($0) } == [1, 1])
      for device in pair { #expect(try views.openConflicts(device).isEmpty) }
    }
  }

  @Test func keepLocalWorksWhenThisDevicesVersionIsOneOfSeveralConcurrentSides() throws {
    try withCLI { cli in
      let three = try views.devices(cli, ["a", "b", "c"], ownViews: true)
      try views.agreeThroughViews(three, on: 5)
      // a and b recount at the same time, and both versions reach the folder.
      #expect(try three[0].run(["edit", "Koleston 7/1", "--quantity", "6"]).status == 0)
      #expect(try three[1].run(["edit", "Koleston 7/1", "--quantity", "8"]).status == 0)
      try views.sync(three[0])
      try views.sync(three[1])
      try views.spread(from: [three[1]], to: [three[0]])
      try views.sync(three[0])  // a now sees two leaves, one of them its own version
      let conflict = try #require(try views.openConflicts(three[0]).first)
      let holders = conflict["sides"]?.elements.compactMap { $0["holder"]?.text } ?? []
      #expect(holders.contains("this device") && holders.contains("b"), "\(holders)")
      let id = try #require(conflict["id"]?.text)
      let kept = try three[0].run(["conflicts", "resolve", id, "--keep", "local"])
      #expect(kept.status == 0, "\(kept)")
      for _ in 0..<3 {
        for device in three { try views.sync(device) }
        try views.spread(from: three, to: three)
      }
      #expect(try three.map { try views.quantity($0) } == [6, 6, 6])
    }
  }

  @Test func keepMirrorIsRefusedWhenSeveralSidesComeFromTheMirror() throws {
    try withCLI { cli in
      let three = try views.devices(cli, ["a", "b", "c"], ownViews: true)
      try views.agreeThroughViews(three, on: 5)
      #expect(try three[1].run(["edit", "Koleston 7/1", "--quantity", "8"]).status == 0)
      #expect(try three[2].run(["edit", "Koleston 7/1", "--quantity", "7"]).status == 0)
      try views.sync(three[1])
      try views.sync(three[2])
      try views.spread(from: [three[1], three[2]], to: [three[0]])
      try views.sync(three[0])
      let conflict = try #require(try views.openConflicts(three[0]).first)
      let id = try #require(conflict["id"]?.text)
      let before = three[0].storeBytes()
      let refused = try three[0].run(["conflicts", "resolve", id, "--keep", "mirror"])
      #expect(refused.status == 1, "\(refused)")
      #expect(refused.standardError.contains("2 sides come from the mirror"), "\(refused)")
      #expect(three[0].storeBytes() == before)
    }
  }

  @Test func conflictsShowListsOnlyWhatDiffersWithDatesAndAbsentValuesForPeople() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["salon-mac", "salon-iphone"])
      try views.agree(pair, on: 5)
      #expect(try pair[0].run(["consume", "Koleston 7/1"]).status == 0)
      #expect(try pair[1].run(["edit", "Koleston 7/1", "--quantity", "9"]).status == 0)
      try views.sync(pair[0])
      try views.sync(pair[1])
      let conflict = try #require(try views.openConflicts(pair[1]).first)
      let page = try pair[1].run(["conflicts", "show", try #require(conflict["id"]?.text)])
      let text = page.standardOutput
      #expect(text.contains("Both changed: this device and salon-mac"), "\(text)")
      #expect(text.contains("quantity"))
      #expect(!text.contains("brand") && !text.contains("null"), "only fields that differ")
      #expect(!text.contains("1764441600"), "dates are formatted")
      #expect(text.contains("salon-mac"))
    }
  }
}
