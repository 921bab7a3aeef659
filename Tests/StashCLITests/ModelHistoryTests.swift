import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// The two directed histories of `sync_model.py` (F1 and F2 in its header), played through the
/// binary on four devices, each with its own view of the shared folder so that segments reach
/// each device exactly when the model says.
@Suite struct ModelHistoryTests {
  private let views = SharedFolderViews()

  private func run(_ device: CLI, _ arguments: [String]) throws {
    let result = try device.run(arguments)
    #expect(result.status == 0, "\(arguments): \(result)")
  }

  /// Every device gets every file of every view and syncs, three times over.
  private func quiesce(_ devices: [CLI]) throws {
    for _ in 0..<3 {
      try views.spread(from: devices, to: devices)
      for device in devices { try views.sync(device) }
    }
  }

  /// F1: while several leaves stay in conflict, the local row is not replaced by the winner.
  ///
  /// From 3 tubes: d3 uses 2; d1 uses 1, then 1 more (its second version wins, by generation).
  /// d3 sees its own version and d1's as concurrent leaves (a merge would be -1: below zero)
  /// and uses 1 more on the row it shows; d1 restocks 10 and merges. Adopting d1's winner on
  /// d3 would have lowered d3's own tally, and the last merge would swallow a move (every
  /// device showed 9). The count is 3 - 2 - 1 - 1 - 1 + 10 = 8.
  @Test func f1TheLocalRowIsNeverReplacedByTheWinnerOfAnOpenConflict() throws {
    try withCLI { cli in
      let d = try views.devices(cli, ["d0", "d1", "d2", "d3"], ownViews: true)
      try views.agreeThroughViews(d, on: 3)
      try run(d[3], ["consume", "Koleston 7/1", "2"])
      try views.sync(d[3])  // its segment; it imports nothing new
      try run(d[1], ["consume", "Koleston 7/1"])
      try views.sync(d[1])
      try run(d[1], ["consume", "Koleston 7/1"])
      try views.sync(d[1])
      try views.spread(from: [d[1]], to: [d[3]])  // only d1's two segments reach d3
      try views.sync(d[3])
      #expect(try views.openConflicts(d[3]).first?["kind"]?.text == "below-zero")
      #expect(try views.quantity(d[3]) == 1, "d3 keeps its own row")
      try run(d[3], ["consume", "Koleston 7/1"])
      try views.sync(d[3])
      try run(d[1], ["restock", "Koleston 7/1", "10"])
      try views.spread(from: d, to: [d[1]])
      try views.sync(d[1])
      try quiesce(d)
      for device in d {
        #expect(try views.quantity(device) == 8)
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  /// F2: a resolution that keeps a live side starts a new epoch.
  ///
  /// From 3 tubes: d0 uses 3, d1 uses 2 (concurrently); d2 has only d0's side. d0 sees below
  /// zero and keeps d1's side (1 tube), then uses 1; d2, on the discarded branch, restocks 5.
  /// Keeping the old epoch would let d2's restock merge with the resolution and silently undo
  /// the choice; in a new epoch, the two are a conflict a person sees.
  @Test func f2AResolutionStartsANewEpochSoADiscardedBranchCannotUndoIt() throws {
    try withCLI { cli in
      let d = try views.devices(cli, ["d0", "d1", "d2", "d3"], ownViews: true)
      try views.agreeThroughViews(d, on: 3)
      try run(d[0], ["consume", "Koleston 7/1", "3"])
      try views.sync(d[0])
      try run(d[1], ["consume", "Koleston 7/1", "2"])
      try views.sync(d[1])
      try views.spread(from: [d[0]], to: [d[2]])
      try views.sync(d[2])
      #expect(try views.quantity(d[2]) == 0, "d2 took d0's side")
      try views.spread(from: d, to: [d[0]])
      try views.sync(d[0])
      let conflict = try #require(try views.openConflicts(d[0]).first)
      #expect(conflict["kind"]?.text == "below-zero")
      let theirs = try #require(
        conflict["sides"]?.elements.first { $0["holder"]?.text == "d1" }?["hash"]?.text)
      try run(d[0], ["conflicts", "resolve", try #require(conflict["id"]?.text), "--keep", theirs])
      #expect(try views.quantity(d[0]) == 1)
      try run(d[0], ["consume", "Koleston 7/1"])
      try views.sync(d[0])
      try run(d[2], ["restock", "Koleston 7/1", "5"])
      try quiesce(d)
      let open = try d.flatMap { try views.openConflicts($0) }
      #expect(!open.isEmpty, "the restock on the discarded branch is a conflict, not a merge")
      #expect(open.allSatisfy { $0["kind"]?.text == "both-edited" }, "\(open)")
      #expect(try views.quantity(d[0]) == 0, "the choice and the move after it stand")
    }
  }
}
