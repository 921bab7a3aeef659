import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport
import Testing

/// A deterministic simulation of 2 to 4 devices syncing through a shared folder.
///
/// Some seeds start with a zone race (a device made its own zone before the folder reached
/// it) that a person merges at a random step, and the sync tool now and then loses a photo
/// in every view (removed, or renamed as rclone bisync does): see `Simulation+ZoneRace.swift`
/// and `Simulation+Photos.swift`.
///
/// Each device has its own view of the folder, and a simulated sync tool (Syncthing, Dropbox)
/// copies files between views: late, out of order, twice (as "conflicted copies"), or not at
/// all while a device is offline. Every `sync` is a fresh process, so its gate starts closed.
/// After every step the simulation checks DESIGN.md's invariants 1-7 against a model of what
/// people wrote; at the end, after everyone synced with everything delivered, devices without
/// open conflicts hold equal stores.
///
/// Replay one seed with `STASH_SEED=<n>`; run more with `STASH_SIM_SEEDS=<n>`.
@Suite struct MultiDeviceSimulationTests {
  @Test func randomMultiDeviceHistoriesKeepTheInvariants() throws {
    let seeds = TestEnvironment.seeds(default: 300)
    var failed = 0
    var totals = Simulation.Totals()
    for seed in seeds {
      let problems = try withTemporaryFolder { folder in
        var simulation = try Simulation(seed: seed, folder: folder)
        defer { totals.add(simulation.totals) }
        return try simulation.run()
      }
      if !problems.isEmpty {
        failed += 1
        Issue.record("seed \(seed) (replay: STASH_SEED=\(seed)): \(problems.prefix(4))")
        if failed >= 3 { break }
      }
    }
    print("MultiDeviceSimulationTests: \(seeds.count) seeds, \(totals)")
    if seeds.count >= 50 {
      #expect(totals.syncs > 0 && totals.failedSyncs > 0 && totals.conflicts > 0)
      #expect(totals.resolutions > 0 && totals.deletes > 0 && totals.conflictedCopies > 0)
      #expect(totals.places > 0, "locations and reminders take part")
      #expect(totals.sealedSyncs > 0, "the sync seal's shortcut is checked against full syncs")
      #expect(
        totals.sealedImports > 0 && totals.sealedImportChecks > 0 && totals.focusedChecks > 0,
        "syncs that import another device's changes over its records only are checked")
      #expect(
        totals.heal.raceReports > 0 && totals.heal.zoneJoins > 0, "zone races are reported, joined")
      #expect(totals.heal.photosPublished > 0, "photos the sync tool lost are published again")
    }
  }
}
