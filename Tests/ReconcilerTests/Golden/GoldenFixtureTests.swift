import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Runs every folder under `Fixtures/reconcile/` and compares the stores and the report with
/// the expectations. `STASH_RECORD_FIXTURES=1` rebuilds the inputs from ``GoldenCase/all``,
/// rewrites the expectations, and fails so that the new baseline is reviewed as a diff.
@Suite struct GoldenFixtureTests {
  static let folder = "reconcile"

  @Test(arguments: Fixtures.entries(folder).filter { !$0.hasSuffix(".md") })
  func reconcileFixture(name: String) throws {
    let caseFolder = Fixtures.url("\(Self.folder)/\(name)")
    let expected = caseFolder.appendingPathComponent("expected")
    try withTemporaryFolder { work in
      let outcome = try GoldenRunner.run(caseFolder: caseFolder, work: work)
      #expect(outcome.problems == [], "\(name)")
      let report = JSONWriter.bytes(.object(outcome.report)) + [UInt8(ascii: "\n")]
      if Fixtures.isRecording { return }  // recorded by everyCaseHasAFolder
      #expect(
        try Data(contentsOf: expected.appendingPathComponent("report.json")) == Data(report),
        "\(name): the report differs; STASH_RECORD_FIXTURES=1 shows the diff")
      #expect(
        try Data(contentsOf: expected.appendingPathComponent("default.store"))
          == outcome.localStore,
        "\(name): the local store differs")
      let mirrorPath = expected.appendingPathComponent("cloud.store")
      #expect(
        (try? Data(contentsOf: mirrorPath)) == outcome.mirrorStore,
        "\(name): the mirror store differs")
    }
  }

  @Test func everyCaseHasAFolderAndEveryFolderACase() throws {
    let folders = Set(Fixtures.entries(Self.folder).filter { !$0.hasSuffix(".md") })
    if Fixtures.isRecording {
      for golden in GoldenCase.all { try record(golden) }
      Issue.record("Recorded \(GoldenCase.all.count) reconcile fixtures; review the diff")
      return
    }
    #expect(folders == Set(GoldenCase.all.map(\.name)))
  }

  /// Builds a case's inputs and writes its expectations.
  private func record(_ golden: GoldenCase) throws {
    let caseFolder = Fixtures.url("\(Self.folder)/\(golden.name)")
    try? FileManager.default.removeItem(at: caseFolder)
    let input = caseFolder.appendingPathComponent("input")
    let expected = caseFolder.appendingPathComponent("expected")
    try FileManager.default.createDirectory(at: expected, withIntermediateDirectories: true)
    try withTemporaryFolder { scratch in
      try golden.build(CaseBuilder(folder: scratch))
      try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
      var names = ["default.store"]
      if golden.name != "seed-01-local-store-available-without-sync" { names.append("cloud.store") }
      for name in names {
        try FileManager.default.copyItem(
          at: scratch.appendingPathComponent(name), to: input.appendingPathComponent(name))
      }
    }
    let steps = golden.steps.map { String(decoding: JSONWriter.bytes($0.json), as: UTF8.self) }
    try Data((steps.joined(separator: "\n") + "\n").utf8).write(
      to: caseFolder.appendingPathComponent("steps.jsonl"))
    try Data("# \(golden.name)\n\n\(golden.about)\n".utf8).write(
      to: caseFolder.appendingPathComponent("README.md"))
    try withTemporaryFolder { work in
      let outcome = try GoldenRunner.run(caseFolder: caseFolder, work: work)
      try outcome.localStore.write(to: expected.appendingPathComponent("default.store"))
      try outcome.mirrorStore?.write(to: expected.appendingPathComponent("cloud.store"))
      let report = JSONWriter.bytes(.object(outcome.report)) + [UInt8(ascii: "\n")]
      try Data(report).write(to: expected.appendingPathComponent("report.json"))
    }
  }
}
