import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Issue 21's fifth finding: copies and restored backups of a device folder. A folder found
/// elsewhere than where it last wrote takes a device identity of its own before its first
/// write, so the moves made on a copy and on the original both count, whatever the timing,
/// with no command to run.
@Suite struct IncarnationTests {
  private let views = SharedFolderViews()

  private func quantity(_ device: CLI) throws -> Int64? {
    try device.run(["show", "Koleston 7/1", "--json"]).json()["quantity"]?.integer
  }

  private func copy(_ original: CLI, as name: String) throws -> CLI {
    var copy = original
    copy.home = original.folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: original.home, to: copy.home)
    return copy
  }

  /// A, its copy A2 (taken right after a clean sync, as the README advised) and B each use
  /// one of 10: every device ends at 7 (it was 8: the copy and the original tallied under
  /// one id, and the larger tally swallowed a move).
  @Test func aCopyAndItsOriginalBothCount() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 10)
      let copy = try copy(pair[0], as: "a2")
      let used = try copy.run(["consume", "Koleston 7/1"])
      #expect(used.status == 0, "\(used)")
      #expect(used.standardError.contains("was copied or restored"), "\(used)")
      for device in pair { #expect(try device.run(["consume", "Koleston 7/1"]).status == 0) }
      let everyone = [pair[0], pair[1], copy]
      for device in everyone + everyone + everyone { try views.sync(device) }
      for device in everyone {
        #expect(try quantity(device) == 7, "\(device.home.lastPathComponent)")
        #expect(try views.openConflicts(device).isEmpty)
      }
      let ids = try everyone.map { try $0.device(create: false).folder.deviceID }
      #expect(Set(ids).count == 3, "the copy syncs as a device of its own")
    }
  }

  /// A backup of A, restored onto the machine that replaces it after A used one more: the
  /// consume made after the restore counts too (6, not 7).
  @Test func aRestoredBackupKeepsEveryMoveOfTheOriginalAndItsOwn() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 8)
      let backup = cli.folder.appendingPathComponent("backup-of-a")
      try FileManager.default.copyItem(at: pair[0].home, to: backup)
      #expect(try pair[0].run(["consume", "Koleston 7/1"]).status == 0)
      try views.sync(pair[0])
      // A is lost; its backup is restored onto the new machine.
      try FileManager.default.removeItem(at: pair[0].home)
      try FileManager.default.copyItem(at: backup, to: pair[0].home)
      #expect(try pair[0].run(["consume", "Koleston 7/1"]).status == 0)
      for device in pair + pair + pair { try views.sync(device) }
      for device in pair {
        #expect(try quantity(device) == 6, "\(device.home.lastPathComponent)")
        #expect(try views.openConflicts(device).isEmpty)
      }
    }
  }

  /// Reading never writes: a copy that is only read keeps the original's identity until its
  /// first write, and the original never changes identity.
  @Test func readingACopyChangesNothingAndTheOriginalKeepsItsIdentity() throws {
    try withCLI { cli in
      let pair = try views.devices(cli, ["a", "b"])
      try views.agree(pair, on: 5)
      let before = try pair[0].device(create: false).folder.deviceID
      let copy = try copy(pair[0], as: "a2")
      let bytes = copy.storeBytes()
      for command in [["list"], ["sync", "status"], ["doctor"], ["history", "Koleston 7/1"]] {
        let run = try copy.run(command)
        #expect(run.status == 0 && !run.standardError.contains("copied"), "\(command): \(run)")
      }
      #expect(copy.storeBytes() == bytes, "reading a copy writes nothing")
      #expect(try pair[0].run(["consume", "Koleston 7/1"]).status == 0)
      try views.sync(pair[0])
      #expect(try pair[0].device(create: false).folder.deviceID == before)
    }
  }
}
