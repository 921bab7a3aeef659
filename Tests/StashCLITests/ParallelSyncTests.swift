import Foundation
import MirrorStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Several `stash sync` processes on one device folder, while another device syncs too: each
/// waits for the one before it or gives up as busy (exit 3), and every version reaches the
/// other device.
@Suite struct ParallelSyncTests {
  @Test func parallelSyncsOfOneDeviceLoseNoVersion() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var a = cli
      a.home = cli.folder.appendingPathComponent("device-a")
      var b = cli
      b.home = cli.folder.appendingPathComponent("device-b")
      for device in [a, b] { try device.run(["sync", "enable", "--cloud", cloud.path]) }
      try a.run(["add", "Soap", "--quantity", "10"])
      _ = try a.run(["sync"])
      try b.run(["add", "Shampoo", "--quantity", "10"])
      _ = try b.run(["sync"])
      _ = try a.run(["sync"])

      // Each process restocks its device's item (counted when it worked), then syncs; three
      // of them at once per device, for several rounds, both devices at the same time.
      let log = { (name: String) in cli.folder.appendingPathComponent(name).path }
      func rounds(_ item: String, _ logPath: String) -> String {
        """
        for round in 1 2 3 4 5 6 7 8 9 10 11 12; do
          for i in 1 2 3 4; do
            ( "$0" restock \(item) 1 >/dev/null 2>&1 && echo restocked >> '\(logPath)'
              "$0" sync >/dev/null 2>>'\(logPath).errors'; echo "sync $?" >> '\(logPath)' ) &
          done
          wait
        done
        """
      }
      let runs = [
        try a.start(rounds("Soap", log("a.log"))), try b.start(rounds("Shampoo", log("b.log"))),
      ]
      for run in runs.map({ $0.finish() }) { #expect(run.status == 0, "\(run)") }

      var restocked = [String: Int64]()
      for (name, item) in [("a.log", "Soap"), ("b.log", "Shampoo")] {
        let lines = try String(contentsOfFile: log(name), encoding: .utf8).split(separator: "\n")
        restocked[item] = Int64(lines.filter { $0 == "restocked" }.count)
        let statuses = Set(lines.filter { $0.hasPrefix("sync ") })
        let errors = (try? String(contentsOfFile: log(name) + ".errors", encoding: .utf8)) ?? ""
        #expect(statuses.isSubset(of: ["sync 0", "sync 3"]), "\(statuses): \(errors)")
        #expect(statuses.contains("sync 0"))
      }
      for device in [a, b, a, b] {
        let run = try device.run(["sync"])
        #expect(run.status == 0, "\(run)")
      }
      for device in [a, b] {
        for (item, count) in restocked {
          let shown = try device.run(["show", item, "--json"]).json()
          #expect(shown["quantity"]?.integer == 10 + count, "\(item) on \(device.home)")
        }
        #expect(try device.run(["conflicts", "--json"]).json().elements.isEmpty)
      }
      // Every version each device wrote is in the other's mirror.
      let mirrors = try [a, b].map {
        try #require($0.device(create: false).folder.mirror.store?.content)
      }
      for (mine, theirs) in [(mirrors[0], mirrors[1]), (mirrors[1], mirrors[0])] {
        for (key, versions) in mine.versions {
          for version in versions.values where version.author == mine.deviceID {
            #expect(theirs.versions[key]?[version.id] != nil, "\(version) never arrived")
          }
        }
      }
    }
  }
}
