import Foundation
import JSONLines
import Stash
import StashModel
import StashTestSupport
import Testing

/// What `stash sync` and `stash sync status` say about files still arriving, and the exit
/// statuses of a sync: non-zero only when nothing could be done.
@Suite struct SyncReportTests {
  private func pair(_ cli: CLI) throws -> (a: CLI, b: CLI, cloud: URL) {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var a = cli
    a.home = cli.folder.appendingPathComponent("device-a")
    var b = cli
    b.home = cli.folder.appendingPathComponent("device-b")
    for device in [a, b] { try device.run(["sync", "enable", "--cloud", cloud.path]) }
    return (a, b, cloud)
  }

  @Test func aHalfDeliveredSegmentIsWaitingInSyncAndInSyncStatus() throws {
    try withCLI { cli in
      let (a, b, cloud) = try pair(cli)
      try a.run(["add", "Soap", "--quantity", "5"])
      let segment = try #require(try a.run(["sync", "--json"]).json()["segment"]?.text)
      let path = cloud.appendingPathComponent(segment)
      let whole = try Data(contentsOf: path)
      try whole.prefix(whole.count - 20).write(to: path)

      let run = try b.run(["sync"])
      #expect(run.status == 0, "\(run)")
      #expect(!run.standardOutput.contains("Rejected"), "\(run)")
      #expect(run.standardOutput.contains("Waiting"), "\(run)")
      let status = try b.run(["sync", "status"])
      #expect(status.standardOutput.contains(segment), "\(status)")
      let json = try b.run(["sync", "status", "--json"]).json()
      #expect(json["waiting"]?.elements.isEmpty == false, "\(json)")

      try whole.write(to: path)
      _ = try b.run(["sync"])
      #expect(try b.run(["show", "Soap"]).status == 0)
      #expect(try b.run(["sync", "status", "--json"]).json()["waiting"]?.elements.isEmpty == true)
    }
  }

  @Test func aSyncWhileAnotherHoldsTheFolderIsBusyAndChangesNothing() throws {
    try withCLI { cli in
      let (a, _, _) = try pair(cli)
      try a.run(["add", "Soap"])
      let before = a.storeBytes()
      let lock = FolderLock(folder: a.home.path)
      let held = try lock.acquire()
      defer { lock.release(held) }
      let run = try a.run(["sync"])
      #expect(run.status == 3, "\(run)")
      #expect(a.storeBytes() == before)
    }
  }

  @Test func aDamagedMirrorIsExitFourAndNothingIsExchanged() throws {
    try withCLI { cli in
      let (a, _, cloud) = try pair(cli)
      try a.run(["add", "Soap"])
      _ = try a.run(["sync"])
      try Data("garbage\n".utf8).write(to: a.home.appendingPathComponent("cloud.store"))
      let files = try FileManager.default.subpathsOfDirectory(atPath: cloud.path)
      let run = try a.run(["sync"])
      #expect(run.status == 4, "\(run)")
      #expect(try FileManager.default.subpathsOfDirectory(atPath: cloud.path) == files)
    }
  }

  @Test func helpSaysWhenSyncExitsNonZero() throws {
    try withCLI { cli in
      let help = try cli.run(["sync", "--help"])
      let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(text.contains("Non-zero only when nothing could be done"), "\(help)")
    }
  }
}
