import Foundation
import LocalStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Queries over indexed fields (issue 24, item 4) and references with delete rules (item 5),
/// on seed 003's scorecard: fights, and rounds naming their fight.
@Suite struct QueryAndRelationTests {
  static let fight = try! Schema(
    model: "fight",
    fields: [
      FieldSpec("title", .string), FieldSpec("weightClass", .optional(.string)),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", indexed: ["weightClass"])

  static func round(_ rule: DeleteRule) -> Schema {
    try! Schema(
      model: "round",
      fields: [
        FieldSpec("fight", .optional(.reference(model: "fight")), onDelete: rule),
        FieldSpec("number", .integer), FieldSpec("score", .double),
        FieldSpec("updatedAt", .date),
      ], changeTime: "updatedAt", indexed: ["fight", "number", "score"])
  }

  static func fightRecord(_ number: Int, weight: String? = nil) -> Record {
    try! Record(
      schema: fight, id: .derived(model: "fight", naturalKey: "f\(number)"),
      values: [.string("Fight \(number)"), weight.map { .string($0) } ?? .none, .date(epoch)])
  }

  static func roundRecord(_ schema: Schema, fight: Int, number: Int) -> Record {
    try! Record(
      schema: schema, id: .derived(model: "round", naturalKey: "f\(fight)-r\(number)"),
      values: [
        .reference(.derived(model: "fight", naturalKey: "f\(fight)")), .integer(Int64(number)),
        .double(Double(number) / 2), .date(epoch),
      ])
  }

  /// A folder with `fights` fights of 12 rounds each.
  static func scorecard(
    _ root: URL, _ name: String = "a", fights: Int, rule: DeleteRule = .none
  ) throws -> SyncFolder {
    let round = Self.round(rule)
    let folder = try SyncFolder.open(
      at: root.appendingPathComponent(name).path, schemas: [fight, round],
      options: .init(deviceName: name, clock: { epoch }))
    try folder.write { tx in
      for number in 0..<fights {
        try tx.save(fightRecord(number, weight: number.isMultiple(of: 2) ? "heavy" : nil))
        for roundNumber in 1...12 {
          try tx.save(roundRecord(round, fight: number, number: roundNumber))
        }
      }
    }
    return folder
  }

  private static func fightID(_ number: Int) -> RecordID {
    .derived(model: "fight", naturalKey: "f\(number)")
  }

  @Test func oneFightsRoundsByReferenceSortedAndLimited() throws {
    try withTemporaryFolder { root in
      let folder = try Self.scorecard(root, fights: 300)
      let rounds = try folder.records(
        RecordQuery("round").where("fight", equals: .reference(Self.fightID(7)))
          .sorted(by: "number", descending: true).limited(to: 5))
      #expect(rounds.map { $0.values[1] } == [12, 11, 10, 9, 8].map { FieldValue.integer($0) })
      #expect(rounds.allSatisfy { $0.values[0] == .reference(Self.fightID(7)) })
      // A range, and a second condition checked on what the first selected.
      let middle = try folder.records(
        RecordQuery("round").where("number", from: .integer(4), through: .integer(6))
          .where("fight", equals: .reference(Self.fightID(3))).sorted(by: "number"))
      #expect(middle.map { $0.values[1] } == [4, 5, 6].map { FieldValue.integer($0) })
      // The same, with Swift values: a RecordID for a reference, numbers as they are.
      let typed = try folder.records(
        RecordQuery("round").where("number", from: Int64(4), through: 6)
          .where("fight", equals: Self.fightID(3)).sorted(by: "number"))
      #expect(typed == middle)
      let high = try folder.records(
        RecordQuery("round").where("score", from: .double(5.5), through: nil))
      #expect(high.count == 300 * 2)
      // Empty optionals: equal to none, outside every range.
      let noClass = try folder.records(RecordQuery("fight").where("weightClass", equals: .none))
      #expect(noClass.count == 150)
      let anyClass = try folder.records(
        RecordQuery("fight").where("weightClass", from: nil, through: nil))
      #expect(anyClass.count == 150)
    }
  }

  @Test func aQueryOnAFieldThatIsNotIndexedIsRefused() throws {
    try withTemporaryFolder { root in
      let folder = try Self.scorecard(root, fights: 1)
      let error = #expect(throws: StashError.self) {
        try folder.records(RecordQuery("fight").where("title", equals: .string("Fight 0")))
      }
      #expect(error?.message.contains("'title' of 'fight' is not indexed") == true)
      #expect(throws: StashError.self) { try folder.records(RecordQuery("nothing")) }
      #expect(throws: StashError.self) {
        try folder.records(RecordQuery("round").sorted(by: "nothing"))
      }
    }
  }

  @Test func theIndexFollowsSavesDeletesAndAnotherInstancesCommits() throws {
    try withTemporaryFolder { root in
      let folder = try Self.scorecard(root, fights: 2)
      let round = Self.round(.none)
      let query = RecordQuery("round").where("number", equals: .integer(13))
      #expect(try folder.records(query).isEmpty)
      try folder.save(Self.roundRecord(round, fight: 0, number: 13))
      #expect(try folder.records(query).count == 1)
      // Another instance (as another process would) moves it to number 14.
      let other = try SyncFolder.open(
        at: root.appendingPathComponent("a").path, schemas: [Self.fight, round],
        options: .init(createIfMissing: false, clock: { epoch }))
      var moved = Self.roundRecord(round, fight: 0, number: 14)
      moved = try Record(
        schema: round, id: Self.roundRecord(round, fight: 0, number: 13).id, values: moved.values)
      try other.save(moved)
      try folder.refresh()
      #expect(try folder.records(query).isEmpty)
      #expect(
        try folder.records(RecordQuery("round").where("number", equals: .integer(14))).count == 1)
      try folder.delete(moved.key)
      #expect(
        try folder.records(RecordQuery("round").where("number", equals: .integer(14))).isEmpty)
    }
  }

  @Test func aCascadeDeletesTheRoundsInTheSameTransactionAndSyncsAsTombstones() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let a = try Self.scorecard(root, "a", fights: 3, rule: .cascade)
      try a.enableSync(cloud: cloud.path)
      let b = try Self.scorecard(root, "b", fights: 0, rule: .cascade)
      try b.enableSync(cloud: cloud.path)
      let schemas = [Self.fight, Self.round(.cascade)]
      func reopen(_ name: String) throws -> SyncFolder {
        try SyncFolder.open(
          at: root.appendingPathComponent(name).path, schemas: schemas,
          options: .init(createIfMissing: false, clock: { epoch }))
      }
      _ = try reopen("a").sync()
      let deviceB = try reopen("b")
      _ = try deviceB.sync()
      #expect(deviceB.records(of: "round").count == 36)
      let deviceA = try reopen("a")
      let before = deviceA.local!.content.tombstones.count
      try deviceA.delete(RecordKey(model: "fight", id: Self.fightID(1)))
      #expect(deviceA.records(of: "round").count == 24)
      #expect(deviceA.local!.content.tombstones.count == before + 13)
      #expect(try deviceA.sync().versionsExported == 13)
      _ = try deviceB.sync()
      #expect(deviceB.records(of: "fight").count == 2)
      #expect(deviceB.records(of: "round").count == 24)
      #expect(deviceB.conflicts().isEmpty)
    }
  }

  @Test func nullifyClearsTheReferenceAndDenyRefusesTheDelete() throws {
    try withTemporaryFolder { root in
      let nullifying = try Self.scorecard(root, "n", fights: 2, rule: .nullify)
      try nullifying.delete(RecordKey(model: "fight", id: Self.fightID(0)))
      #expect(nullifying.records(of: "round").count == 24)
      let orphans = try nullifying.records(RecordQuery("round").where("fight", equals: .none))
      #expect(orphans.count == 12)

      let denying = try Self.scorecard(root, "d", fights: 2, rule: .deny)
      let snapshot = FolderSnapshot(of: root.appendingPathComponent("d").path)
      let error = #expect(throws: StashError.self) {
        try denying.delete(RecordKey(model: "fight", id: Self.fightID(0)))
      }
      #expect(error?.message.contains("whose rule denies its delete") == true)
      #expect(
        FolderSnapshot(of: root.appendingPathComponent("d").path).differences(from: snapshot)
          == [])
      // Deleting the rounds first, in one transaction with the fight, is allowed.
      try denying.write { tx in
        for number in 1...12 {
          try tx.delete(Self.roundRecord(Self.round(.deny), fight: 0, number: number).key)
        }
        try tx.delete(RecordKey(model: "fight", id: Self.fightID(0)))
      }
      #expect(denying.records(of: "fight").count == 1)
    }
  }

  @Test func aRuleNeedsAReferenceAndNullifyAnOptionalOne() {
    #expect(throws: ModelError.self) {
      try Schema(model: "x", fields: [FieldSpec("a", .string, onDelete: .cascade)])
    }
    #expect(throws: ModelError.self) {
      try Schema(
        model: "x", fields: [FieldSpec("a", .reference(model: "y"), onDelete: .nullify)])
    }
    #expect(throws: ModelError.self) {
      try Schema(model: "x", fields: [FieldSpec("a", .counter)], indexed: ["a"])
    }
  }
}
