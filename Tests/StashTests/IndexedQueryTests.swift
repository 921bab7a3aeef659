import Foundation
import Stash
import StashFiles
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import LocalStore

/// Queries on a folder opened for a few records answer from the field table of the index
/// beside the store (issue 24, item 4): the same records a folder read whole gives, reading
/// only the rows selected, and the whole store when the index cannot answer.
@Suite struct IndexedQueryTests {
  static let fight = try! Schema(
    model: "fight",
    fields: [
      FieldSpec("title", .string), FieldSpec("weightClass", .optional(.string)),
      FieldSpec("rating", .optional(.double)), FieldSpec("scheduled", .date),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", indexed: ["weightClass", "rating", "scheduled"])
  static let round = try! Schema(
    model: "round",
    fields: [
      FieldSpec("fight", .optional(.reference(model: "fight"))), FieldSpec("number", .integer),
      FieldSpec("score", .double), FieldSpec("judge", .string), FieldSpec("stoppage", .bool),
      FieldSpec("note", .string), FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", indexed: ["fight", "number", "score", "judge", "stoppage"])
  static let schemas = [fight, round]

  /// Every save rewrites the index, however small the store.
  static let eager = LocalStore.IndexPolicy(
    minimumRows: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30)
  /// An index on disk is never rewritten (its prefix falls behind).
  static let once = LocalStore.IndexPolicy(
    minimumRows: 1, rewriteAfterBytes: 1 << 40, maximumTailBytes: 1 << 30)

  /// The folder read whole (`focused: false`) or opened for queries only (no lookups).
  static func open(
    _ path: String, focused: Bool, policy: LocalStore.IndexPolicy = eager,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws -> SyncFolder {
    var options = SyncFolder.Options(
      createIfMissing: true, deviceName: "d", clock: { epoch }, fileSystem: fileSystem,
      access: .reading)
    options.index = policy
    if focused { options.focus(on: []) }
    return try SyncFolder.open(at: path, schemas: schemas, options: options)
  }

  static func fightID(_ number: Int) -> RecordID {
    .derived(model: "fight", naturalKey: "f\(number)")
  }

  static func roundRecord(fight: Int?, number: Int, score: Double = 9, judge: String = "A")
    throws -> Record
  {
    try Record(
      schema: round, id: .derived(model: "round", naturalKey: "f\(fight ?? -1)-r\(number)"),
      values: [
        fight.map { .reference(fightID($0)) } ?? .none, .integer(Int64(number)), .double(score),
        .string(judge), .bool(number == 12), .string("round \(number)"), .date(epoch),
      ])
  }

  /// `fights` fights of 12 rounds, written in one transaction, and the index after it.
  static func scorecard(_ path: String, fights: Int) throws {
    _ = try open(path, focused: false)  // a store read from its file writes its index
    let folder = try open(path, focused: false)
    try folder.write { tx in
      for number in 0..<fights {
        try tx.save(
          Record(
            schema: fight, id: fightID(number),
            values: [
              .string("Fight \(number)"), number % 3 == 0 ? .none : .string("class \(number % 4)"),
              .double(Double(number % 7) - 3), .date(epoch), .date(epoch),
            ]))
        for roundNumber in 1...12 { try tx.save(roundRecord(fight: number, number: roundNumber)) }
      }
    }
  }

  static func fightRounds(_ number: Int) -> RecordQuery {
    RecordQuery("round").where("fight", equals: fightID(number)).sorted(by: "number")
  }

  // MARK: - Answers

  @Test func aFocusedFolderAnswersFromTheIndexReadingOnlyTheRowsSelected() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 300)
      let files = CountingFileSystem()
      let focused = try Self.open(path, focused: true, fileSystem: files)
      #expect(focused.local?.content.isComplete == false)
      #expect(focused.local?.content.rows.isEmpty == true)
      files.reset()
      let rounds = try focused.records(Self.fightRounds(7))
      #expect(rounds.map(\.values[1]) == (1...12).map { FieldValue.integer(Int64($0)) })
      #expect(rounds == (try Self.open(path, focused: false).records(Self.fightRounds(7))))
      // 12 lines of the 3,900 read from the store, and a few 4 KiB blocks of the index.
      let store = files.reads(ofFileEndingWith: "/default.store")
      let size = try #require(
        try FileManager.default.attributesOfItem(atPath: path + "/default.store")[.size] as? Int)
      #expect(store.calls == 12)
      #expect(store.bytes < 12 * 512)
      #expect(store.bytes * 200 < size)
      #expect(files.reads(ofFileEndingWith: "/default.store.index").calls < 80)
      #expect(focused.local?.content.isComplete == false)
    }
  }

  /// Three seeds by default; `STASH_SIM_SEEDS=N` runs N, `STASH_SEED=S` replays one.
  @Test(arguments: TestEnvironment.seeds(default: 3))
  func answersEqualTheWholeReadOverRandomData(seed: UInt64) throws {
    try withTemporaryFolder { root in
      var random = SeededRandom(seed: seed)
      let path = root.appendingPathComponent("a").path
      _ = try Self.open(path, focused: false)
      let writer = try Self.open(path, focused: false)
      let judges = ["A", "b", "é", "e\u{301}", "", "Zed", "\u{212A}", "K"]
      let scores: [Double] = [-0.0, 0.0, -2.5, 1e-300, 7, 9.5, -1e9, 10]
      func randomRound(_ id: Int) throws -> Record {
        let fightNumber = Int.random(in: -1..<12, using: &random)
        return try Record(
          schema: Self.round, id: .derived(model: "round", naturalKey: "r\(id)"),
          values: [
            fightNumber < 0 ? .none : .reference(Self.fightID(fightNumber)),
            .integer(Int64.random(in: -3...14, using: &random) * (seed == 2 ? Int64.max / 20 : 1)),
            .double(scores.randomElement(using: &random)!),
            .string(judges.randomElement(using: &random)!), .bool(Bool.random(using: &random)),
            .string("n"), .date(epoch),
          ])
      }
      try writer.write { tx in
        for number in 0..<12 {
          let classes: [FieldValue] = [.none, .string("heavy"), .string("light")]
          let ratings: [FieldValue] = [.none, .double(-0.0), .double(0.0), .double(3.5)]
          try tx.save(
            Record(
              schema: Self.fight, id: Self.fightID(number),
              values: [
                .string("F\(number)"), classes.randomElement(using: &random)!,
                ratings.randomElement(using: &random)!,
                .date(Timestamp(secondsSince1970: Double(number % 5) - 2)!), .date(epoch),
              ]))
        }
        for id in 0..<240 { try tx.save(randomRound(id)) }
      }
      // Another process then edits without rewriting the index: its prefix falls behind.
      let other = try Self.open(path, focused: false, policy: Self.once)
      for _ in 0..<30 {
        let id = Int.random(in: 0..<260, using: &random)
        if Bool.random(using: &random),
          other.record(
            RecordKey(model: "round", id: .derived(model: "round", naturalKey: "r\(id)"))) != nil
        {
          try other.delete(
            RecordKey(model: "round", id: .derived(model: "round", naturalKey: "r\(id)")))
        } else {
          try other.save(randomRound(id))
        }
      }
      let whole = try Self.open(path, focused: false)
      let focused = try Self.open(path, focused: true)
      guard case .used(let tail)? = focused.local?.openReport.index, tail > 0 else {
        Issue.record("the index was not used with a tail")
        return
      }
      let roundValues = whole.records(of: "round").map(\.values)
      let fightValues = whole.records(of: "fight").map(\.values)
      var answered = 0
      for number in 0..<300 {
        let query = Self.randomQuery(&random, rounds: roundValues, fights: fightValues)
        let expected = try whole.records(query)
        if !expected.isEmpty { answered += 1 }
        #expect(try focused.records(query) == expected, "seed \(seed), query \(number): \(query)")
      }
      #expect(answered > 100, "seed \(seed): most queries should find something")
      #expect(focused.local?.content.isComplete == false, "seed \(seed): a query read whole")
    }
  }

  /// A query of one condition on an indexed field (a value found in the store, or another),
  /// perhaps a second, an order and a limit.
  static func randomQuery(
    _ random: inout SeededRandom, rounds: [[FieldValue]], fights: [[FieldValue]]
  ) -> RecordQuery {
    let onRounds = Int.random(in: 0..<4, using: &random) > 0
    let rows = onRounds ? rounds : fights
    let indexed = onRounds ? round.indexedIndices : fight.indexedIndices
    let schema = onRounds ? round : fight
    var query = RecordQuery(schema.model)
    func value(_ position: Int) -> FieldValue? {
      if Int.random(in: 0..<8, using: &random) == 0 { return nil }
      return rows.randomElement(using: &random)?[position]
    }
    let conditions = Int.random(in: 0...2, using: &random)
    for _ in 0..<conditions {
      let position = indexed.randomElement(using: &random)!
      let name = schema.fields[position].name
      if Bool.random(using: &random) {
        query = query.where(name, equals: value(position) ?? .none)
      } else {
        var bounds = [value(position), value(position)]
        if bounds.allSatisfy({ $0 != nil }), FieldValue.order(bounds[1]!, bounds[0]!) == true,
          Int.random(in: 0..<4, using: &random) > 0
        {
          bounds.swapAt(0, 1)
        }
        query = query.where(name, from: bounds[0], through: bounds[1])
      }
    }
    if Bool.random(using: &random) {
      let position = Int.random(in: 0..<schema.fields.count, using: &random)
      query = query.sorted(
        by: schema.fields[position].name, descending: Bool.random(using: &random))
    }
    if Bool.random(using: &random) {
      query = query.limited(to: Int.random(in: 0...15, using: &random))
    }
    return query
  }

  @Test func aFocusedFolderListsAndFetchesThroughTheIndexToo() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 20)
      let gone = RecordKey(model: "round", id: .derived(model: "round", naturalKey: "f2-r2"))
      let other = try Self.open(path, focused: false, policy: Self.once)
      try other.delete(gone)
      try other.save(Self.roundRecord(fight: 2, number: 13))
      let whole = try Self.open(path, focused: false)
      let focused = try Self.open(path, focused: true)
      #expect(focused.records(of: "round") == whole.records(of: "round"))
      #expect(focused.records(of: "round").count == 240)
      #expect(focused.records(of: "fight") == whole.records(of: "fight"))
      let kept = RecordKey(model: "round", id: .derived(model: "round", naturalKey: "f3-r4"))
      #expect(focused.record(kept) == whole.record(kept))
      #expect(focused.record(kept) != nil)
      #expect(focused.record(gone) == nil)
      let added = RecordKey(model: "round", id: .derived(model: "round", naturalKey: "f2-r13"))
      #expect(focused.record(added) == whole.record(added))
      #expect(focused.local?.content.isComplete == false)
    }
  }

  @Test func aFocusedFolderRefusesToSaveARecordItDidNotReadAsANewOne() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 20)
      let focused = try Self.open(path, focused: true)
      let before = FolderSnapshot(of: path)
      let error = #expect(throws: StashError.self) {
        try focused.save(Self.roundRecord(fight: 3, number: 4, judge: "changed"))
      }
      #expect(error?.message.contains("did not read it; open the folder whole") == true)
      #expect(FolderSnapshot(of: path).differences(from: before) == [])
      // A record the store does not hold is saved, as by a one-record command.
      try focused.save(Self.roundRecord(fight: 3, number: 14))
      let whole = try Self.open(path, focused: false)
      #expect(try whole.records(Self.fightRounds(3)).count == 13)
      #expect(whole.records(of: "round").count == 241)
    }
  }

  // MARK: - When the index cannot answer

  @Test func anIndexBehindAnotherProcesssSaveAnswersWithThatSave() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 20)
      let other = try Self.open(path, focused: false, policy: Self.once)
      try other.delete(RecordKey(model: "round", id: .derived(model: "round", naturalKey: "f7-r4")))
      try other.save(Self.roundRecord(fight: 7, number: 13, judge: "new"))
      let moved = try Record(
        schema: Self.round, id: .derived(model: "round", naturalKey: "f7-r5"),
        values: try Self.roundRecord(fight: 8, number: 5).values)
      try other.save(moved)
      let focused = try Self.open(path, focused: true)
      guard case .used(let tail)? = focused.local?.openReport.index, tail > 0 else {
        Issue.record("the index was not used with a tail")
        return
      }
      let whole = try Self.open(path, focused: false)
      for number in [7, 8, 9] {
        let answer = try focused.records(Self.fightRounds(number))
        #expect(answer == (try whole.records(Self.fightRounds(number))))
      }
      #expect(try focused.records(Self.fightRounds(7)).count == 11)
      #expect(focused.local?.content.isComplete == false)
    }
  }

  @Test func anIndexRewrittenByAnotherProcessIsNotUsedAndTheStoreIsReadWhole() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 20)
      let focused = try Self.open(path, focused: true)
      #expect(focused.local?.content.isComplete == false)
      // Another process saves and writes the index again after this one opened.
      try Self.open(path, focused: false).save(Self.roundRecord(fight: 3, number: 13))
      let answer = try focused.records(Self.fightRounds(3))
      #expect(answer.count == 13)
      #expect(answer == (try Self.open(path, focused: false).records(Self.fightRounds(3))))
      #expect(focused.local?.content.isComplete == true)
    }
  }

  @Test func aMissingOrDamagedIndexIsReadAroundAndWrittenAgain() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      let indexPath = path + "/default.store.index"
      try Self.scorecard(path, fights: 20)
      let expected = try Self.open(path, focused: false).records(Self.fightRounds(4))
      #expect(expected.count == 12)

      try FileManager.default.removeItem(atPath: indexPath)
      let missing = try Self.open(path, focused: true)
      #expect(try missing.records(Self.fightRounds(4)) == expected)
      #expect(FileManager.default.fileExists(atPath: indexPath))
      let again = try Self.open(path, focused: true)
      #expect(again.local?.content.isComplete == false)
      #expect(try again.records(Self.fightRounds(4)) == expected)

      // One byte changed in the middle of the field table (the body is the file's end): its
      // block's check fails when the query's binary search reads it, after a focused open
      // that never did.
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: indexPath)))
      let head = try #require(LocalStore.readIndex(at: indexPath, fileSystem: POSIXFileSystem()))
      let middle = head.fieldTableStart + head.fieldCount / 2 * LocalIndex.fieldSlot
      bytes[bytes.count - head.bodyLength + middle] ^= 0x40
      try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
      let damaged = try Self.open(path, focused: true)
      #expect(damaged.local?.content.isComplete == false)
      #expect(try damaged.records(Self.fightRounds(4)) == expected)
      #expect(damaged.local?.content.isComplete == true)
      let rebuilt = try Self.open(path, focused: true)
      #expect(rebuilt.local?.content.isComplete == false)
      #expect(try rebuilt.records(Self.fightRounds(4)) == expected)
    }
  }

  @Test func anIndexWrittenForOtherIndexedFieldsIsNotUsed() throws {
    try withTemporaryFolder { root in
      let path = root.appendingPathComponent("a").path
      try Self.scorecard(path, fights: 20)
      // The next release indexes the note too.
      let noted = try Schema(
        model: "round", fields: Self.round.fields, changeTime: "updatedAt",
        indexed: ["fight", "number", "score", "judge", "stoppage", "note"])
      var options = SyncFolder.Options(
        createIfMissing: false, clock: { epoch }, access: .reading)
      options.index = Self.eager
      options.focus(on: [])
      let folder = try SyncFolder.open(at: path, schemas: [Self.fight, noted], options: options)
      #expect(folder.local?.content.isComplete == true)
      let notes = try folder.records(RecordQuery("round").where("note", equals: "round 3"))
      #expect(notes.count == 20)
      // The query wrote the index again, for the new declaration: the next open uses it.
      let next = try SyncFolder.open(at: path, schemas: [Self.fight, noted], options: options)
      #expect(next.local?.content.isComplete == false)
      #expect(try next.records(RecordQuery("round").where("note", equals: "round 3")) == notes)
    }
  }
}
