import Foundation
import JSONLines
import Stash
import StashBase
import StashModel
import Testing

/// Several `stash` processes on one folder: nothing lost, and a held lock fails cleanly.
@Suite struct ConcurrencyTests {
  @Test func twoLoopsOfConsumesLoseNoUpdate() throws {
    try withCLI { cli in
      try cli.device().addItem(Item(name: "Soap", quantity: 500, createdAt: epoch))
      let loop = #"for i in $(seq 100); do "$0" consume Soap >/dev/null || exit 1; done"#
      let first = try cli.start(loop)
      let second = try cli.start(loop)
      let runs = [first.finish(), second.finish()]
      for run in runs { #expect(run.status == 0, "\(run)") }
      #expect(try cli.device(create: false).item("Soap").quantity == 300)
      let doctor = try cli.run(["doctor", "--json"])
      #expect(doctor.status == 0, "\(doctor)")
      #expect(try doctor.json()["damaged"] == .bool(false))
    }
  }

  @Test(arguments: [["consume", "Soap"], ["list"], ["doctor"]])
  func aCommandWaitsForAHeldLockThenFailsAsBusyAndChangesNothing(arguments: [String]) throws {
    try withCLI { cli in
      try cli.device().addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      let before = cli.storeBytes()
      let lock = FolderLock(folder: cli.home.path)
      let held = try lock.acquire()
      defer { lock.release(held) }
      let run = try cli.run(arguments)
      #expect(run.status == 3, "\(run)")
      #expect(run.standardError.contains("Another process is writing this folder"), "\(run)")
      #expect(run.standardError.contains(cli.home.appendingPathComponent("lock").path))
      #expect(run.standardOutput.isEmpty)
      #expect(cli.storeBytes() == before)
    }
  }
}
