import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport
import StashWorkload
import Testing

/// An I/O error at every step, as SQLite's tests inject one at every Nth call: for a fixed
/// workload of two devices (adds with a photo, a consume, a delete, syncs, a conflict and its
/// resolution, and compactions of both stores), each run fails one more call, of any kind.
@Suite struct IOErrorTests {
  /// Where a failure must reach the caller: a write, fsync or truncate of a store file itself
  /// (a failed compaction, on its temporary file, is allowed to pass unnoticed: the save it
  /// followed was already durable, and the old file is kept).
  private static func mustSurface(_ call: ScriptedFileSystem.Call) -> Bool {
    let name = call.path.split(separator: "/").last.map(String.init) ?? ""
    return [LocalStore.fileName, MirrorStore.fileName].contains(name)
      && [.write, .fsync, .truncate].contains(call.operation)
  }

  @Test func failingAnyOneCallIsReportedSavesNothingUnsaidAndLeavesUsableStores() async throws {
    try await withTemporaryFolderAsync(inMemory: true) { folder in
      // One fixed workload; STASH_SEED=<n> runs the workload of seed n instead.
      let seed = TestEnvironment.seeds(default: 1).first.map { $0 == 0 ? 7 : $0 } ?? 7
      let reference = try ReferenceRun(
        Workload(seed: seed, rounds: 0), in: folder.appendingPathComponent("template"))
      #expect(reference.outcomes.allSatisfy { $0 == .saved }, "\(reference.outcomes)")
      // The workload compacts both stores and stores photos (renames), and publishes segments
      // and shared photos (links: nothing in the shared folder is ever replaced).
      let renames = reference.calls.filter { $0.operation == .rename }.map(\.path)
      for kind in [".store.tmp -> ", "/blobs/."] {
        #expect(renames.contains { $0.contains(kind) }, "no '\(kind)' in \(renames)")
      }
      let links = reference.calls.filter { $0.operation == .link }.map(\.path)
      #expect(links.contains { $0.contains(".jsonl.") && $0.hasSuffix(".jsonl") }, "\(links)")
      #expect(renames.contains { $0.hasSuffix(LocalStore.fileName) })
      #expect(renames.contains { $0.hasSuffix(MirrorStore.fileName) })
      let total = reference.ends.last!
      let surfaced = LockedBox(0)
      try await forEachConcurrently(total) { index in
        let number = index + 1
        let context = "seed \(seed), failing call \(number) of \(total)"
        do {
          try withTemporaryFolder(inMemory: true) { trialFolder in
            try Self.trial(number, reference, in: trialFolder, context, surfaced: surfaced)
          }
        } catch {
          Issue.record("\(context): \(error)")
        }
      }
      print(
        "IOErrorTests: seed \(seed), \(total) calls failed one at a time, \(surfaced.withLock { $0 }) surfaced as a failed step"
      )
    }
  }

  private static func trial(
    _ number: Int, _ reference: ReferenceRun, in folder: URL, _ context: String,
    surfaced: LockedBox<Int>
  ) throws {
    let root = try reference.copy(to: folder)
    let files = ScriptedFileSystem()
    let run = Workload.Run(
      workload: reference.workload, root: root, fileSystem: files, syncsAsTheCLI: false)
    files.failCall(number)
    let failing = try #require(reference.step(making: number))
    let steps = reference.workload.steps
    for step in steps[..<failing] {
      #expect(run.perform(step) == reference.outcomes[step.index], "\(context): \(step)")
    }
    let step = steps[failing]
    let before = try ReferenceRun.state(of: root)
    #expect(before == reference.states[failing], "\(context): the steps before went as usual")
    let outcome = run.perform(step)
    #expect(files.allFaultsFired, "\(context)")
    #expect(files.doubleCloses == 0, "\(context): a descriptor was closed twice")
    let failed = try #require(files.calls.last { $0.failed }, "\(context)")
    let after = try ReferenceRun.state(of: root)
    let device = step.device
    // What the process believes is saved is what the disk holds.
    if let open = run.folder(device), let local = open.folder.local {
      #expect(StoreDigest.local(local.content) == after.local[device], "\(context): \(step)")
      if let mirror = open.folder.mirror.store, mirror.file.fileExists {
        #expect(
          StoreDigest.versions(mirror.content) == after.versions[device], "\(context): \(step)")
      }
    }
    switch outcome {
    case .failed:
      surfaced.withLock { $0 += 1 }
      if step.action != .sync {
        // One transaction per store, undone together: a failed step leaves no trace.
        #expect(after == before, "\(context): \(step) failed but changed the stores")
      }
    case .saved, .skipped:
      #expect(!mustSurface(failed), "\(context): \(failed) failed and \(step) said it saved")
      // A sync reads what it can and reports the rest as waiting (a segment it could not
      // read, a photo not there): it may do less than the reference, never something else,
      // which the syncs of `expectUsable` below settle.
      if step.action != .sync {
        #expect(
          after == reference.states[failing + 1],
          "\(context): \(step) saved something else after \(failed)")
      }
    }
    if failed.operation == .fsync, mustSurface(failed) {
      // A failed fsync is final: the file is opened anew before anything else is written.
      let later = files.calls.drop { $0.number < failed.number || $0.number == 0 }.dropFirst()
      if let write = later.firstIndex(where: { $0.operation == .write && $0.path == failed.path }) {
        #expect(
          later[..<write].contains { $0.operation == .open && $0.path == failed.path },
          "\(context): written on after a failed fsync")
      }
    }
    // The next step, in the same process, works as it would have.
    if failing + 1 < steps.count {
      _ = run.perform(steps[failing + 1])
    }
    try expectUsable(root, reference.workload, context)
  }
}
