import Foundation
import JSONLines
import StashFiles
import StashTestSupport
import StashWorkload
import Testing

/// The crash tests' workloads synced as `stash sync` does (syncs of sealed changes where the
/// seal allows them) leave, after every step, exactly the stores the full syncs of their
/// reference runs leave.
@Suite struct WorkloadSyncTests {
  @Test func syncingAsTheCLIDoesLeavesWhatTheFullSyncsLeave() throws {
    try withTemporaryFolder { folder in
      var sealed = 0
      var lighter = 0
      for seed in CrashTests.workloads {
        let reference = try ReferenceRun(
          Workload(seed: seed), in: folder.appendingPathComponent("template-\(seed)"))
        let root = try reference.copy(to: folder.appendingPathComponent("cli-\(seed)"))
        let run = Workload.Run(
          workload: reference.workload, root: root, fileSystem: POSIXFileSystem())
        for step in reference.workload.steps {
          #expect(run.perform(step) == reference.outcomes[step.index], "seed \(seed): \(step)")
          #expect(
            try ReferenceRun.state(of: root) == reference.states[step.index + 1],
            "seed \(seed): after \(step)")
        }
        sealed += run.sealedSyncs
        lighter += run.lighterSyncs
      }
      print(
        "WorkloadSyncTests: \(lighter) syncs lighter than the full sync, \(sealed) of them of "
          + "sealed changes, in \(CrashTests.workloads.count) workloads")
      // The workloads compact at almost every save (`Workload.compaction`): the save after a
      // clean sync rewrites the store (a new inode, a shorter file), so the sealed prefix no
      // longer describes it and the sync runs whole, as it must. Traced on 3 workloads: of
      // the 24 syncs that ran whole, 6 found the store rewritten so and 18 found the other
      // device's export in the shared folder (or the mirror changed). Syncs of sealed changes
      // are run many times by the simulation and SealedChangesTests.
      #expect(lighter > 0)
    }
  }
}
