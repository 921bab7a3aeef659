import Foundation
import JSONLines
import StashBase
import StashModel
import StashTestSupport
import Testing

/// What a power cut can leave of a log: the pages of its last, unsynchronized transaction on
/// disk in any order, holes of zeros where a page never made it, and a rename without its
/// folder's fsync undone. Every such state opens at a commit, with every transaction whose
/// append had returned.
@Suite struct PowerCutLogTests {
  /// One step of the workload: the operations of one append, or a compaction.
  private enum Step {
    case append([Int])
    /// One operation that ends the log 90 bytes before a page boundary.
    case pad
    case compact
  }

  /// Appends small and multi-page transactions (one that starts a few bytes before a page
  /// boundary), compacts, and appends again.
  private static let steps: [Step] = [
    .append([1]),
    .pad,
    .append(Array(2...40)),
    .append([41]),
    .append(Array(42...250)),
    .append([251, 252]),
    .compact,
    .append(Array(253...300)),
    .append([301]),
  ]

  private static func operation(_ number: Int) -> JSONObject {
    [
      "n": .integer(Int64(number)),
      "text": .string(String(repeating: "p", count: 40 + number % 60)),
    ]
  }

  @Test func everyStateAPowerCutLeavesOpensAtACommitWithEveryReturnedAppend() throws {
    let seed = TestEnvironment.seeds(default: 1).first! + 22
    print("PowerCutLogTests: seed \(seed) (replay with STASH_SEED=\(seed - 22))")
    var random = SeededRandom(seed: seed)
    try withTemporaryFolder(inMemory: true) { folder in
      let root = folder.appendingPathComponent("root")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let files = try ScriptedFileSystem(recordingPowerCutsUnder: root.path)
      let path = root.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader, fileSystem: files)
      // The log's operations after each step (index 0: before the first).
      var contents: [[Int]] = [[]]
      var ends = [files.eventCount]
      for step in Self.steps {
        var content = contents.last!
        switch step {
        case .append(let numbers):
          try log.append(numbers.map(Self.operation))
          content += numbers
        case .pad:
          try log.append([padding(toPageEndFrom: log.committedEnd)])
          content.append(0)
        case .compact:
          try log.compact(
            to: content.map { $0 == 0 ? padding(toPageEndFrom: 0) : Self.operation($0) })
        }
        contents.append(content)
        ends.append(files.eventCount)
      }
      #expect(files.problems.isEmpty, "\(files.problems)")
      var replay = files.replay()
      var checked = 0
      for (index, end) in ends.enumerated().dropFirst() {
        let states = replay.states(through: end, count: 60, using: &random)
        for state in states {
          checked += 1
          let context = "seed \(seed), step \(index - 1): \(state)"
          try check(state, replay, expecting: [contents[index - 1], contents[index]], in: folder) {
            Issue.record("\(context): \($0)")
          }
        }
      }
      print("PowerCutLogTests: \(checked) states of \(Self.steps.count) steps opened at a commit")
      #expect(checked >= 80)
    }
  }

  /// An operation whose line brings a log ending at `end` to 90 bytes short of a page end.
  private func padding(toPageEndFrom end: Int64) -> JSONObject {
    let room = (4096 - Int(end % 4096) - 90 + 4096) % 4096
    return ["n": .integer(0), "text": .string(String(repeating: "z", count: max(0, room - 40)))]
  }

  /// Opens one state for reading, then for writing, and checks what it holds.
  private func check(
    _ state: PowerCutState, _ replay: PowerCutReplay, expecting allowed: [[Int]], in folder: URL,
    fail: (String) -> Void
  ) throws {
    let place = folder.appendingPathComponent("state-\(UUID().uuidString)").path
    _ = try state.write(to: place, identities: replay.identities)
    defer { try? FileManager.default.removeItem(atPath: place) }
    let path = place + "/a.store"
    guard FileManager.default.fileExists(atPath: path) else {
      // Only before the log's creation was durable.
      if allowed[0] != [] { fail("the log is gone") }
      return
    }
    let before = try fileBytes(path)
    do {
      let read = try readLog(path, recoverTail: false)
      let content = read.transactions.flatMap { $0 }
      if !allowed.contains(content) { fail("a reader saw \(content.count) operations") }
      if try fileBytes(path) != before { fail("a reader changed the file") }
      let written = try readLog(path)
      if written.transactions.flatMap({ $0 }) != content { fail("a writer saw other operations") }
      if let tail = written.tail {
        let kept = try fileBytes(try #require(tail.keptAt))
        if kept != Array(before[Int(tail.offset)...]) { fail("the side file is not the tail") }
      }
      if try readLog(path).tail != nil { fail("a second open found a tail again") }
    } catch {
      fail("it does not open: \(error)")
    }
  }
}
