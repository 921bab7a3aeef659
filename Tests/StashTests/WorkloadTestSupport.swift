import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashFiles
import StashModel
import StashTestSupport
import StashWorkload
import Testing

/// A workload prepared once in a template folder, and its reference run: the steps' outcomes,
/// the file-system calls each made, and both devices' stores after each step.
final class ReferenceRun: Sendable {
  /// What both devices' stores held after a step (or before the first, at index 0).
  struct State: Sendable, Equatable {
    var local: [Workload.Device: String]
    var versions: [Workload.Device: Set<String>]
  }

  let workload: Workload
  let template: URL
  /// The outcome of each step.
  let outcomes: [Workload.Outcome]
  /// `states[i]`: the stores before step `i` (`states[steps.count]`: after the last).
  let states: [State]
  /// `ends[i]`: how many failable calls were made by the end of step `i`.
  let ends: [Int]
  /// Every call the reference made.
  let calls: [ScriptedFileSystem.Call]

  /// Prepares `workload` in `template` and runs it once without faults.
  init(_ workload: Workload, in template: URL) throws {
    self.workload = workload
    self.template = template
    try workload.prepare(in: template)
    let scratch = template.deletingLastPathComponent().appendingPathComponent(
      template.lastPathComponent + "-reference")
    try FileManager.default.copyItem(at: template, to: scratch)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let files = ScriptedFileSystem()
    // The full sync only: a reference's calls must be the same in every run (IOErrorTests).
    let run = Workload.Run(
      workload: workload, root: scratch, fileSystem: files, syncsAsTheCLI: false)
    var states = [try Self.state(of: scratch)]
    var ends: [Int] = []
    var outcomes: [Workload.Outcome] = []
    for step in workload.steps {
      outcomes.append(run.perform(step))
      ends.append(files.callCount)
      states.append(try Self.state(of: scratch))
    }
    self.outcomes = outcomes
    self.states = states
    self.ends = ends
    self.calls = files.calls
  }

  /// Both devices' stores in `root`, read from disk.
  static func state(of root: URL) throws -> State {
    var state = State(local: [:], versions: [:])
    for device in Workload.Device.allCases {
      let (local, mirror, _) = try StoreDigest.read(Workload.home(device, in: root))
      state.local[device] = StoreDigest.local(local)
      state.versions[device] = mirror.map(StoreDigest.versions) ?? []
    }
    return state
  }

  /// The step that makes failable call `number` (counted from 1), if any.
  func step(making number: Int) -> Int? {
    ends.firstIndex { number <= $0 }
  }

  /// A fresh copy of the template under `folder`.
  func copy(to folder: URL) throws -> URL {
    let root = folder.appendingPathComponent("root")
    try FileManager.default.copyItem(at: template, to: root)
    return root
  }
}

/// Checks that the folders in `root` are sound and keep syncing: every store opens (setting
/// aside what a crash left), passes its invariant checks, holds every photo its rows name, and
/// both devices sync twice without a rejected segment.
func expectUsable(
  _ root: URL, _ workload: Workload, _ context: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  for device in Workload.Device.allCases {
    let (_, _, problems) = try StoreDigest.read(Workload.home(device, in: root))
    #expect(problems.isEmpty, "\(context): \(device): \(problems)", sourceLocation: sourceLocation)
  }
  // Through a run, so that each device syncs through this root's shared folder.
  let run = Workload.Run(workload: workload, root: root, fileSystem: POSIXFileSystem())
  for device in Workload.Device.allCases + Workload.Device.allCases {
    let report = try run.open(device).folder.sync()
    #expect(
      report.rejectedSegments.isEmpty, "\(context): \(device): \(report.rejectedSegments)",
      sourceLocation: sourceLocation)
  }
  for device in Workload.Device.allCases {
    let (_, _, problems) = try StoreDigest.read(Workload.home(device, in: root))
    #expect(problems.isEmpty, "\(context): \(device): \(problems)", sourceLocation: sourceLocation)
  }
}

/// Runs `body` for each of `count` indexes, `workers` at a time (the machine has two cores).
/// Child tasks keep the test's context, so expectations inside `body` count for the test.
func forEachConcurrently(
  _ count: Int, workers: Int = 2, _ body: @escaping @Sendable (Int) throws -> Void
) async throws {
  try await withThrowingTaskGroup(of: Void.self) { group in
    var next = 0
    func start() {
      guard next < count else { return }
      let index = next
      next += 1
      group.addTask { try body(index) }
    }
    for _ in 0..<workers { start() }
    while try await group.next() != nil { start() }
  }
}
