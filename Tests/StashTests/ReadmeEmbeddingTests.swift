import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

// README, "Embedding with your own schema": the code between the markers is the README's,
// character for character (a test below compares them), so the README's example compiles.
// README-EMBEDDING-BEGIN
/// A tool's own model: a recipe, one per title on every device.
struct Recipe: RecordConvertible, Equatable {
  static let schema = try! Schema(
    model: "recipe",
    fields: [
      FieldSpec("title", .string), FieldSpec("steps", .string),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", candidateKey: "title")

  /// Derived from the title: two devices adding "Pancakes" agree on its id.
  var id: RecordID { .derived(model: "recipe", naturalKey: title.lowercased()) }
  var title: String
  var steps: String
  var updatedAt: Timestamp

  init(title: String, steps: String, updatedAt: Timestamp) {
    self.title = title
    self.steps = steps
    self.updatedAt = updatedAt
  }

  init(record: Record) throws(ModelError) {
    title = try record.value("title")
    steps = try record.value("steps")
    updatedAt = try record.value("updatedAt")
  }

  var record: Record {
    try! Record(
      schema: Self.schema, id: id,
      values: [FieldValue(title), FieldValue(steps), FieldValue(updatedAt)])
  }
}

func cookbook(home: String, sharedFolder: String) throws -> [Recipe] {
  let folder = try SyncFolder.open(at: home, schemas: [Recipe.schema])
  try folder.save(Recipe(title: "Pancakes", steps: "Mix, fry", updatedAt: .now()))
  try folder.update(Recipe.self, id: .derived(model: "recipe", naturalKey: "pancakes")) {
    $0.steps = "Mix, rest, fry"
  }
  try folder.enableSync(cloud: sharedFolder)  // from the next open on

  let synced = try SyncFolder.open(at: home, schemas: [Recipe.schema])
  let report = try synced.sync()  // import, reconcile, export
  print("exported \(report.versionsExported), \(report.newConflicts.count) new conflicts")
  for conflict in synced.conflicts() {
    try synced.resolveConflict(conflict.id.rawValue, keep: .local)
  }
  // An app keeps a session: once a sync opened the gate, each save schedules a pass (the
  // callback hops to the app's queue and calls session.flush() there).
  let session = try SyncSession(folder: synced) {}
  session.enterBackground()  // passes wait until enterForeground()
  session.enterForeground()
  try synced.refresh()  // see what another process saved
  return synced.all(Recipe.self)
}
// README-EMBEDDING-END

@Suite struct ReadmeEmbeddingTests {
  @Test func theEmbeddingExampleRunsAndSyncs() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let recipes = try cookbook(
        home: root.appendingPathComponent("home").path, sharedFolder: cloud.path)
      #expect(recipes.map(\.steps) == ["Mix, rest, fry"])
      let devices = try FileManager.default.contentsOfDirectory(
        atPath: cloud.appendingPathComponent("devices").path)
      #expect(devices.count == 1, "the sync exported")
    }
  }

  @Test func theReadmeShowsThisCodeCharacterForCharacter() throws {
    let here = URL(fileURLWithPath: #filePath)
    let source = try String(contentsOf: here, encoding: .utf8)
    let readme = try String(
      contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let begin = "// README-EMBEDDING-BEGIN\n"
    let end = "// README-EMBEDDING-END"
    let start = try #require(source.range(of: begin))
    let stop = try #require(source.range(of: end, range: start.upperBound..<source.endIndex))
    let code = String(source[start.upperBound..<stop.lowerBound])
    #expect(readme.contains("```swift\n" + code + "```"), "README and this file differ")
  }
}
