import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A `put` line that is well framed but cannot be trusted is set aside when the store is read:
/// not live, kept byte for byte through compaction, until a repair moves it to a side file.
@Suite struct LocalStoreDamagedRowTests {
  /// Appends one transaction of raw operations, as another tool could write them.
  private func appendRaw(_ operations: [JSONObject], to folder: URL) throws {
    let (log, _) = try Log.open(
      at: folder.appendingPathComponent(LocalStore.fileName).path, format: LocalContent.format,
      supportedVersion: LocalContent.version, recoverTail: true
    ) { _ in }
    try log.append(operations)
  }

  /// The operation of a put of `record` at `row`, with `quantity` forced into its fields.
  private func put(_ record: Record, row: Int64, quantity: Int64) -> JSONObject {
    var fields = record.fieldsJSON()
    fields["quantity"] = .integer(quantity)
    return [
      "put": .object([
        "row": .integer(row), "model": .string(record.model), "id": .string(record.id.rawValue),
        "hash": .string(record.snapshotHash.hex), "fields": .object(fields),
      ])
    ]
  }

  @Test func aRowThatFailsItsModelsChecksIsSetAsideAndSurvivesCompaction() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      try store.insert(item("Soap").record)
      let rinse = item("Rinse").record
      try appendRaw([put(rinse, row: 7, quantity: -5)], to: folder)
      let reopened = try openStore(folder)
      let damaged = try #require(reopened.content.damagedRows[7])
      #expect(damaged.key == rinse.key)
      #expect(damaged.reason.contains("negative"), "\(damaged.reason)")
      #expect(
        reopened.content.records(of: "item").map(\.id) == [
          store.content.rows.values.first!.record.id
        ])
      #expect(reopened.content.nextRow == RowID(8), "new rows never take a damaged row's number")
      expectInvariants(reopened)

      try reopened.compact()
      let compacted = try openStore(folder)
      let kept = try #require(compacted.content.damagedRows[7], "compaction keeps the line")
      #expect(kept.operation == damaged.operation)
      #expect(kept.reason == damaged.reason)
      #expect(compacted.content.records(of: "item").count == 1)
    }
  }

  @Test func aLaterSoundPutOfTheRowReplacesTheDamagedOne() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      let rinse = item("Rinse").record
      try appendRaw([put(rinse, row: 3, quantity: -5)], to: folder)
      try appendRaw([put(rinse, row: 3, quantity: 5)], to: folder)  // its true quantity
      try store.refresh()
      #expect(store.content.damagedRows.isEmpty)
      #expect(store.content.records(of: "item").count == 1)
      expectInvariants(store)
    }
  }

  @Test func aRowNumberOutOfRangeIsSetAsideAndTheNextRowDoesNotOverflow() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      try appendRaw([put(item("Rinse").record, row: .max, quantity: 1)], to: folder)
      try store.refresh()
      #expect(store.content.damagedRows[.max] != nil)
      #expect(store.content.nextRow == RowID(1))
      try store.insert(item("Soap").record)
      #expect(store.content.records(of: "item").count == 1)
    }
  }

  @Test func repairMovesDamagedRowsAndRowsWithAStaleHashToASideFile() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      try store.insert(item("Soap").record)
      try appendRaw([put(item("Rinse").record, row: 9, quantity: -1)], to: folder)
      var edited = item("Shampoo").record
      let staleHash = edited.snapshotHash
      try edited.set("name", to: .string("Shampoo, edited in the file"))
      var fields = edited.fieldsJSON()
      fields["quantity"] = .integer(5)
      try appendRaw(
        [
          [
            "put": .object([
              "row": .integer(10), "model": .string("item"), "id": .string(edited.id.rawValue),
              "hash": .string(staleHash.hex), "fields": .object(fields),
            ])
          ]
        ], to: folder)
      try store.refresh()
      #expect(store.untrustedRows.map(\.row) == [9, 10])
      #expect(throws: LocalStoreError.self) {
        try store.verifyHashes(of: store.content.rows.values)
      }
      let aside = try #require(try store.setAsideDamagedRows(at: epoch))
      #expect(aside.rows.map(\.row) == [9, 10])
      let kept = try String(contentsOfFile: aside.keptAt, encoding: .utf8)
      #expect(kept.split(separator: "\n").count == 2)
      #expect(kept.contains("Shampoo, edited in the file"))
      let reopened = try openStore(folder)
      #expect(reopened.untrustedRows.isEmpty)
      #expect(reopened.content.records(of: "item").count == 1)
      #expect(try reopened.setAsideDamagedRows(at: epoch) == nil)
      expectInvariants(reopened)
    }
  }

  @Test func aRecordLargerThanARecordMayBeIsRefusedBeforeAnythingIsWritten() throws {
    try withTemporaryFolder { folder in
      // A model of another tool, with no checks of its own: only the store's limit applies.
      let notes = try Schema(model: "note", fields: [FieldSpec("text", .string)])
      let store = try LocalStore.open(
        folder: folder.path, schemas: try SchemaRegistry([notes]),
        lock: FolderLock(folder: folder.path), create: .init(deviceName: "here", time: epoch))
      let big = try Record(
        schema: notes, id: .make(),
        fields: ["text": .string(String(repeating: "x", count: RecordLimits.maximumRecordBytes))])
      let before = try Data(contentsOf: folder.appendingPathComponent(LocalStore.fileName))
      #expect {
        try store.insert(big)
      } throws: { error in
        "\(error)".contains("more than the \(RecordLimits.maximumRecordBytes) a record may")
      }
      #expect(try Data(contentsOf: folder.appendingPathComponent(LocalStore.fileName)) == before)
      try store.insert(
        try Record(schema: notes, id: .make(), fields: ["text": .string("a short note")]))
    }
  }

  @Test func aSaveIsCheckedAsOpeningChecksItSoNothingSavedIsSetAsideLater() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      var negative = item("Soap").record
      try negative.set("quantity", to: .counter(Counter(base: -1)))
      #expect(throws: ModelError.self) { try store.insert(negative) }
      #expect(try openStore(folder).content.damagedRows.isEmpty)
    }
  }
}
