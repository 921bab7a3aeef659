import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// `sync enable --cloud` refuses a shared folder that overlaps the device folder: the same
/// folder, one inside it, or one containing it (which would ship the private stores).
@Suite struct SyncEnableTests {
  private enum Overlap: String, CaseIterable {
    case same, inside, containing, throughALink
  }

  @Test(arguments: Overlap.allCases.map(\.rawValue))
  func anOverlappingSharedFolderIsRefused(_ overlap: String) throws {
    try withCLI { cli in
      var device = cli
      let cloud: URL
      switch Overlap(rawValue: overlap)! {
      case .same:
        cloud = device.home
      case .inside:
        cloud = device.home.appendingPathComponent("cloud")
      case .containing:
        cloud = cli.folder.appendingPathComponent("cloud")
        device.home = cloud.appendingPathComponent("devices").appendingPathComponent("mine")
      case .throughALink:
        cloud = cli.folder.appendingPathComponent("link-to-home")
      }
      try device.run(["add", "Soap"])
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      if overlap == Overlap.throughALink.rawValue {
        try FileManager.default.removeItem(at: cloud)
        try FileManager.default.createSymbolicLink(at: cloud, withDestinationURL: device.home)
      }
      let before = device.storeBytes()
      let run = try device.run(["sync", "enable", "--cloud", cloud.path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("device folder"), "\(run)")
      #expect(device.storeBytes() == before, "nothing was saved")
    }
  }

  @Test func aRelativeSharedFolderWithAOneLetterNameIsTakenAsItIs() throws {
    try withCLI { cli in
      try FileManager.default.createDirectory(
        at: cli.folder.appendingPathComponent("a"), withIntermediateDirectories: true)
      let run = try cli.shell(#"cd "$HOME" && "$0" sync enable --cloud a"#)
      #expect(run.status == 0, "\(run)")
      let status = try cli.run(["sync", "status", "--json"]).json()
      let folder = try #require(status["cloudFolder"]?.text)
      #expect(folder.hasPrefix("/") && folder.hasSuffix("/a"), "\(folder)")
    }
  }
}
