import Foundation
import LocalStore
import Stash
import StashBase
import StashModel
import Testing

/// `stash conflicts`, `conflicts show` and `conflicts resolve`, on a conflict seeded through
/// the local store (the reconciler that records them is not on this branch).
@Suite struct ConflictCommandTests {
  /// An item, and an open both-edited conflict on it with a local and a mirror side.
  private func seed(_ cli: CLI) throws -> SyncConflict {
    let device = try cli.device()
    let item = try device.addItem(Item(name: "Soap", quantity: 3, createdAt: epoch))
    var theirs = item
    theirs.quantity = 9
    let conflict = SyncConflict(
      key: item.record.key, kind: .bothEdited,
      sides: [
        ConflictSide(origin: .local, snapshot: .record(item.record)),
        ConflictSide(origin: .mirror, snapshot: .record(theirs.record), author: .make()),
      ],
      noticedAt: epoch)
    let local = try #require(device.folder.local)
    try local.update("a seeded conflict") { _, transaction in transaction.put(conflict) }
    return conflict
  }

  @Test func listsOpenConflictsWithTheirSides() throws {
    try withCLI { cli in
      let conflict = try seed(cli)
      let table = try cli.run(["conflicts"])
      #expect(table.status == 0)
      #expect(table.standardOutput.contains(conflict.id.short))
      #expect(table.standardOutput.contains("both-edited"))
      #expect(table.standardOutput.contains("item 'Soap'"))
      let listed = try cli.run(["conflicts", "--json"]).json().elements
      #expect(listed.count == 1)
      #expect(listed.first?["id"]?.text == conflict.id.rawValue)
      #expect(
        listed.first?["sides"]?.elements.map { $0["hash"]?.text }
          == conflict.sides.map { $0.snapshot?.hash.hex })
    }
  }

  /// A record is labelled by its schema's first lookup field: a reminder by its message.
  @Test func aReminderIsLabelledByItsMessage() throws {
    try withCLI { cli in
      let device = try cli.device()
      let shelf = try device.addLocation(Location(name: "Shelf", createdAt: epoch))
      let reminder = try device.addReminder(
        Reminder(locationID: shelf.id, message: "Order toner", createdAt: epoch))
      var theirs = reminder
      theirs.message = "Order more toner"
      let conflict = SyncConflict(
        key: reminder.record.key, kind: .bothEdited,
        sides: [
          ConflictSide(origin: .local, snapshot: .record(reminder.record)),
          ConflictSide(origin: .mirror, snapshot: .record(theirs.record), author: .make()),
        ],
        noticedAt: epoch)
      let local = try #require(device.folder.local)
      try local.update("a seeded conflict") { _, transaction in transaction.put(conflict) }
      let table = try cli.run(["conflicts"])
      #expect(table.standardOutput.contains("reminder 'Order toner'"), "\(table)")
    }
  }

  @Test func showsEverySidesFullSnapshotInJSONAndWhatDiffersOnThePage() throws {
    try withCLI { cli in
      let conflict = try seed(cli)
      let shown = try cli.run(["conflicts", "show", conflict.id.short, "--json"])
      #expect(shown.status == 0, "\(shown)")
      let sides = try shown.json()["sides"]?.elements ?? []
      #expect(sides.count == 2)
      for (json, side) in zip(sides, conflict.sides) {
        #expect(json["hash"]?.text == side.snapshot?.hash.hex)
        #expect(json["snapshot"] == side.snapshot.map { .object($0.json) })
      }
      let page = try cli.run(["conflicts", "show", String(conflict.id.rawValue.prefix(5))])
      #expect(page.status == 0)
      for side in conflict.sides {
        #expect(page.standardOutput.contains(try #require(side.snapshot?.hash.short)))
      }
      #expect(page.standardOutput.contains("quantity"), "the field that differs")
      #expect(!page.standardOutput.contains("unit"), "only the fields that differ")
    }
  }

  /// A resolution is written to both stores; with sync off there is no mirror to write to.
  /// (Resolving with sync on is in SyncTests.)
  @Test func resolvingWithSyncOffIsRefusedWithTheWayForwardAndChangesNothing() throws {
    try withCLI { cli in
      let conflict = try seed(cli)
      let before = cli.storeBytes()
      let run = try cli.run(["conflicts", "resolve", conflict.id.short, "--keep", "mirror"])
      #expect(run.status == 1)
      #expect(run.standardError.contains("stash sync enable --cloud"), "\(run)")
      #expect(cli.storeBytes() == before)
    }
  }
}
