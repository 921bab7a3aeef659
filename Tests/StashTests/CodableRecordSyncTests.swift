import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

// README, "Records as Codable types": the code between the markers is the README's, character
// for character (a test below compares them).
// README-CODABLE-BEGIN
/// A boxing scorecard's two models: every field is named once, as a property.
struct Fight: CodableRecord, Equatable {
  static let model = "fight"
  static let declaration = RecordDeclaration(changeTime: "updatedAt", lookup: ["title"])
  var id = RecordID.make()
  var title: String
  var scheduledRounds: Int8
  var earlyEnd: Data?
  var updatedAt: Date
}

struct Round: CodableRecord, Equatable {
  enum Winner: String, Codable, CaseIterable { case red, blue, even }
  static let model = "round"
  static let declaration = RecordDeclaration(
    changeTime: "updatedAt", references: ["fight": Fight.model], indexed: ["number"],
    onDelete: ["fight": .cascade])  // a fight's rounds go with it; "fight" is indexed
  var id = RecordID.make()
  var fight: RecordID
  var number: Int8
  var red: Int16
  var blue: Int16
  var winner: Winner?
  var updatedAt: Date
}
// README-CODABLE-END

/// Two devices of a tool with the given schemas, sharing one cloud folder.
struct CodablePair {
  let root: URL
  let schemas: [Schema]
  let clock = TestClock()

  init(_ root: URL, schemas: [Schema]) throws {
    self.root = root
    self.schemas = schemas
    let cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    for name in ["a", "b"] { try open(name).enableSync(cloud: cloud.path) }
  }

  func open(_ name: String) throws -> SyncFolder {
    try SyncFolder.open(
      at: root.appendingPathComponent(name).path, schemas: schemas,
      options: .init(deviceName: name, clock: { [clock] in clock.now }))
  }
}

@Suite struct CodableRecordSyncTests {
  @Test func everyFieldTypeAtItsExtremesSurvivesAReopenAndASyncToAnotherDevice() throws {
    try withTemporaryFolder { root in
      let pair = try CodablePair(root, schemas: [Extremes.schema])
      let a = try pair.open("a")
      for value in Extremes.all { try a.save(value) }
      let reopened = try pair.open("a")
      try expectIdentical(reopened.all(Extremes.self), Extremes.all)
      #expect(try reopened.sync().versionsExported == 3)
      let b = try pair.open("b")
      #expect(try b.sync().appliedLocally == 3)
      try expectIdentical(b.all(Extremes.self), Extremes.all)
      for value in Extremes.all {
        let key = RecordKey(model: Extremes.model, id: value.id)
        #expect(b.record(key)?.snapshotHash == a.record(key)?.snapshotHash)
      }
    }
  }

  @Test func aValueThatCannotBeStoredIsRefusedAndChangesNothing() throws {
    try withTemporaryFolder { root in
      let folder = try CodablePair(root, schemas: [Extremes.schema]).open("a")
      var value = Extremes.highest
      value.u64 = .max
      let error = #expect(throws: StashError.self) { try folder.save(value) }
      #expect(error?.message.contains("'u64'") == true)
      var record = try Extremes.lowest.makeRecord()
      try record.set("u8", to: .integer(256))
      #expect(throws: StashError.self, "the schema's range check") { try folder.save(record) }
      #expect(folder.records(of: Extremes.model).isEmpty)
      try folder.save(Extremes.lowest)
      #expect(throws: StashError.self) {
        try folder.update(Extremes.self, id: Extremes.lowest.id) { $0.maybeU64 = .max }
      }
      try expectIdentical(folder.all(Extremes.self), [Extremes.lowest])
    }
  }

  @Test func aFightAndItsRoundsSaveUpdateAndSyncWithTheHandWrittenPathBeside() throws {
    try withTemporaryFolder { root in
      let pair = try CodablePair(root, schemas: [Fight.schema, Round.schema, Note.schema])
      let a = try pair.open("a")
      let start = Date(timeIntervalSince1970: 1_764_441_600)
      let fight = Fight(title: "Ali v Frazier", scheduledRounds: 15, updatedAt: start)
      // A round may arrive before its fight: references may dangle.
      let rounds = (1...3).map { number in
        Round(
          fight: fight.id, number: Int8(number), red: 10, blue: 9, winner: .red, updatedAt: start)
      }
      for round in rounds { try a.save(round) }
      try a.save(fight)
      try a.save(Note(key: "card", text: "Madison Square Garden", at: epoch))
      try a.update(Fight.self, id: fight.id) {
        $0.earlyEnd = Data([0x7B, 0xFF, 0x00])  // a blob that is not UTF-8
      }
      _ = try a.sync()
      let b = try pair.open("b")
      _ = try b.sync()
      #expect(b.fetch(Fight.self, id: fight.id)?.earlyEnd == Data([0x7B, 0xFF, 0x00]))
      let ofFight = b.all(Round.self).filter { $0.fight == fight.id }
      #expect(Set(ofFight.map(\.id)) == Set(rounds.map(\.id)))
      #expect(b.all(Note.self).map(\.text) == ["Madison Square Garden"])
      try b.delete(Round.self, id: rounds[0].id)
      _ = try b.sync()
      _ = try a.sync()
      #expect(a.all(Round.self).count == 2)
      #expect(try a.schemas.schema(for: "round") == Round.schema)
    }
  }

  @Test func concurrentEditsOfARoundMergeByFieldAndAConflictsSidesDecodeAsRounds() throws {
    try withTemporaryFolder { root in
      let pair = try CodablePair(root, schemas: [Fight.schema, Round.schema])
      let a = try pair.open("a")
      let b = try pair.open("b")
      let start = Date(timeIntervalSince1970: 1_764_441_600)
      let round = Round(fight: .make(), number: 1, red: 10, blue: 9, updatedAt: start)
      try a.save(round)
      _ = try a.sync()
      _ = try b.sync()
      try a.update(Round.self, id: round.id) {
        $0.red = 9
        $0.updatedAt = start + 10
      }
      try b.update(Round.self, id: round.id) {
        $0.blue = 10
        $0.updatedAt = start + 20
      }
      _ = try a.sync()
      #expect(try b.sync().newConflicts.isEmpty, "different fields merge")
      let merged = try #require(b.fetch(Round.self, id: round.id))
      #expect([merged.red, merged.blue] == [9, 10])
      #expect(merged.updatedAt == start + 20, "the latest change time")
      _ = try a.sync()
      try a.update(Round.self, id: round.id) { $0.winner = .red }
      try b.update(Round.self, id: round.id) { $0.winner = .blue }
      _ = try a.sync()
      #expect(try b.sync().newConflicts.count == 1)
      let conflict = try #require(b.conflicts().first)
      let winners = try conflict.sides.compactMap { $0.snapshot?.record }.map {
        try Round(record: $0).winner
      }
      #expect(Set(winners) == [.red, .blue])
    }
  }

  @Test func theReadmeShowsTheseModelsCharacterForCharacter() throws {
    let here = URL(fileURLWithPath: #filePath)
    let source = try String(contentsOf: here, encoding: .utf8)
    let readme = try String(
      contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let begin = "// README-CODABLE-BEGIN\n"
    let start = try #require(source.range(of: begin))
    let stop = try #require(
      source.range(of: "// README-CODABLE-END", range: start.upperBound..<source.endIndex))
    let code = String(source[start.upperBound..<stop.lowerBound])
    #expect(readme.contains("```swift\n" + code + "```"), "README and this file differ")
  }

  private func expectIdentical(
    _ found: [Extremes], _ expected: [Extremes], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let sorted = expected.sorted { $0.id < $1.id }
    #expect(found.count == sorted.count, sourceLocation: sourceLocation)
    for (read, value) in zip(found, sorted) {
      #expect(try read.isIdentical(to: value), "\(value.id)", sourceLocation: sourceLocation)
    }
  }
}
