import Foundation
import Stash
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// The facade's public hooks, used as an embedding app uses them: with `Stash` and
/// `StashModel` imported, never a store module (issue 23, item 4).
@Suite struct FacadeHookTests {
  @Test func observeSavesHearsEachSaveWithTheKeysItWrote() throws {
    try withTemporaryFolder { root in
      let device = try openDevice(root)
      let heard = Mutex<[Set<RecordKey>]>([])
      device.folder.observeSaves { keys in heard.withLock { $0.append(keys) } }
      let item = try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      try device.consume(item.id.rawValue)
      let saves = heard.withLock { $0 }
      #expect(saves.count == 2)
      #expect(saves.allSatisfy { $0.contains(item.record.key) })
    }
  }

  @Test func mirrorProblemIsNilUntilTheMirrorCannotBeOpened() throws {
    try withTemporaryFolder { root in
      let device = try openDevice(root)
      #expect(device.folder.mirrorProblem == nil)  // not entitled: nothing to report
      try device.folder.saveEntitlement(.yearlySubscription)
      #expect(try openDevice(root).folder.mirrorProblem == nil)  // created on first use
      try Data("not a store".utf8).write(to: root.appendingPathComponent("cloud.store"))
      let problem = try #require(try openDevice(root).folder.mirrorProblem)
      #expect(problem.contains("cloud.store"))
    }
  }
}
