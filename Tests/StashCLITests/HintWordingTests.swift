import Foundation
import StashModel
import StashTestSupport
import Testing

/// The library words its advice for any tool and carries it as a hint; `stash` words it as
/// its own command, so a CLI user reads the same advice as before.
@Suite struct HintWordingTests {
  @Test func anUndoOfNothingNamesTheHistoryCommand() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      for device in [other, cli] {
        #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      }
      #expect(try other.run(["add", "Soap"]).status == 0)
      #expect(try other.run(["sync"]).status == 0)
      #expect(try cli.run(["sync"]).status == 0)
      let again = try cli.run(["undo", "Soap"])
      #expect(again.status == 1, "\(again)")
      #expect(
        again.standardError.contains("'stash history Soap' shows who changed it"), "\(again)")
    }
  }

  @Test func aNonFileInventoryNamesDoctor() throws {
    try withCLI { cli in
      let store = cli.home.appendingPathComponent("default.store")
      try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
      let list = try cli.run(["list"])
      #expect(list.status == 4, "\(list)")
      #expect(list.standardError.contains("'stash doctor' shows what is wrong"), "\(list)")
    }
  }
}
