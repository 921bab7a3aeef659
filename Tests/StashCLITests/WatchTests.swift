import Foundation
import Stash
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// `stash sync --watch` (issue 27, item 2) and a folder's changes seen from another process
/// (item 3), with the `stash` binary as the other process.
@Suite struct WatchTests {
  @Test func anObserverSeesASaveMadeByAnotherProcess() async throws {
    try await withTemporaryFolderAsync { folder in
      let cli = CLI(folder: folder)
      let device = try cli.device()
      let heard = LockedBox<[FolderChange]>([])
      let task = Task {
        for await change in device.folder.changes(polling: .milliseconds(20)) {
          heard.withLock { $0.append(change) }
        }
      }
      #expect(try cli.run(["add", "Bleach", "--quantity", "2"]).status == 0)
      for _ in 0..<500 where heard.withLock({ $0 }).isEmpty {
        try await Task.sleep(for: .milliseconds(20))
      }
      let seen = heard.withLock { $0 }
      task.cancel()
      _ = await task.value
      guard case .savedElsewhere(let keys)? = seen.first else {
        Issue.record("Expected a save by another process; heard \(seen)")
        return
      }
      #expect(keys.map(\.model) == ["item"])
      #expect(device.folder.all(Item.self).map(\.name) == ["Bleach"])
    }
  }

  @Test func twoWatchingDevicesConvergeAfterAConsumeOnEachAndStopCleanlyOnSIGTERM() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var a = cli
      a.home = cli.folder.appendingPathComponent("device-a")
      var b = cli
      b.home = cli.folder.appendingPathComponent("device-b")
      for device in [a, b] {
        #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      }
      #expect(try a.run(["add", "Koleston 7/1", "--quantity", "5"]).status == 0)
      for device in [a, b] { #expect(try device.run(["sync"]).status == 0) }
      let stop = cli.folder.appendingPathComponent("stop").path
      let watching = try cli.start(
        """
        STASH_HOME="\(a.home.path)" "$0" sync --watch --interval 0.1 > "\(cli.folder.path)/a.out" 2>&1 &
        pa=$!
        STASH_HOME="\(b.home.path)" "$0" sync --watch --interval 0.1 > "\(cli.folder.path)/b.out" 2>&1 &
        pb=$!
        while [ ! -e "\(stop)" ]; do sleep 0.05; done
        kill -TERM $pa $pb
        wait $pa; echo "a=$?"
        wait $pb; echo "b=$?"
        """)
      // A consume on each device, and no sync run by anyone but the watchers.
      #expect(try a.run(["consume", "Koleston 7/1"]).status == 0)
      let first = waitUntil { (try? quantity(b, "Koleston 7/1")) == 4 }
      #expect(try b.run(["consume", "Koleston 7/1"]).status == 0)
      let second = waitUntil { (try? quantity(a, "Koleston 7/1")) == 3 }
      _ = FileManager.default.createFile(atPath: stop, contents: nil)
      let run = watching.finish()
      let outputA = (try? String(contentsOfFile: cli.folder.path + "/a.out", encoding: .utf8))
      let outputB = (try? String(contentsOfFile: cli.folder.path + "/b.out", encoding: .utf8))
      let outputs = "\(run)\n--- a\n\(outputA ?? "")--- b\n\(outputB ?? "")"
      #expect(first && second, "\(outputs)")
      #expect(run.standardOutput == "a=0\nb=0\n", "\(outputs)")
      #expect(outputA?.contains("Stopped") == true, "\(outputs)")
      #expect(outputB?.contains("Arrived 1 version") == true, "\(outputs)")
      // Nothing half-done: no temporary file anywhere, and both stores as a sync leaves them.
      let left = FileManager.default.enumerator(atPath: cli.folder.path)?.compactMap {
        $0 as? String
      }.filter { TemporaryName.isTemporary(($0 as NSString).lastPathComponent) }
      #expect(left == [], "\(outputs)")
      for device in [a, b] {
        #expect(try quantity(device, "Koleston 7/1") == 3)
        #expect(try device.run(["doctor"]).status == 0)
      }
    }
  }

  @Test func aWatchSurvivesTheSharedFolderGoingAwayAndComingBack() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      let away = cli.folder.appendingPathComponent("cloud-unmounted")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var a = cli
      a.home = cli.folder.appendingPathComponent("device-a")
      var b = cli
      b.home = cli.folder.appendingPathComponent("device-b")
      for device in [a, b] {
        #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      }
      #expect(try a.run(["add", "Bleach", "--quantity", "5"]).status == 0)
      for device in [a, b] { #expect(try device.run(["sync"]).status == 0) }
      let out = cli.folder.path + "/a.out"
      let stop = cli.folder.appendingPathComponent("stop").path
      let watching = try a.start(
        """
        "$0" sync --watch --interval 0.1 > "\(out)" 2>&1 &
        pa=$!
        while [ ! -e "\(stop)" ]; do sleep 0.05; done
        kill -INT $pa
        wait $pa; echo "a=$?"
        """)
      func output() -> String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
      #expect(waitUntil { output().contains("Watching") })
      try FileManager.default.moveItem(at: cloud, to: away)  // the share is unmounted
      #expect(try a.run(["consume", "Bleach"]).status == 0)  // works offline, at once
      let failed = waitUntil { output().contains("Exchange failed") }
      try FileManager.default.moveItem(at: away, to: cloud)  // and mounted again
      let arrived = waitUntil {
        _ = try? b.run(["sync"])
        return (try? quantity(b, "Bleach")) == 4
      }
      _ = FileManager.default.createFile(atPath: stop, contents: nil)
      let run = watching.finish()
      #expect(failed && arrived, "\(run)\n\(output())")
      #expect(output().contains("trying again in 1 s"), "\(output())")
      #expect(run.standardOutput == "a=0\n", "\(run)\n\(output())")
    }
  }

  @Test func anIntervalOutOfRangeIsAUsageErrorThatChangesNothing() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Bleach"]).status == 0)
      let before = cli.storeBytes()
      for arguments in [
        ["sync", "--watch", "--interval", "0"], ["sync", "--watch", "--interval", "nan"],
        ["sync", "--interval", "2"],
      ] {
        let run = try cli.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run)")
        #expect(run.standardError.contains("--interval"), "\(run)")
      }
      #expect(cli.storeBytes() == before)
    }
  }

  private func quantity(_ cli: CLI, _ item: String) throws -> Int64? {
    let shown = try cli.run(["show", item, "--json"])
    guard shown.status == 0 else { return nil }
    return try shown.json()["quantity"]?.integer
  }
}

/// Checks `condition` every 50 ms for up to 20 s; whether it held.
private func waitUntil(_ condition: () -> Bool) -> Bool {
  for _ in 0..<400 {
    if condition() { return true }
    usleep(50_000)
  }
  return false
}
