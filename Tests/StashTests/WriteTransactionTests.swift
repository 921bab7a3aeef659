import Foundation
import LocalStore
import Stash
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// `SyncFolder.write { tx in ... }` (issue 24, item 3): many saves, updates and deletes of
/// several models in one transaction, one fsync, all or nothing, checked as single edits are.
@Suite struct WriteTransactionTests {
  /// A second model beside ``Note``: a tag naming a note.
  static let tag = try! Schema(
    model: "tag",
    fields: [FieldSpec("label", .string), FieldSpec("note", .reference(model: "note"))])

  static func tag(_ label: String, on note: Note) -> Record {
    try! Record(
      schema: tag, id: .derived(model: "tag", naturalKey: label),
      values: [.string(label), .reference(note.id)])
  }

  private static func open(
    _ root: URL, _ name: String, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws -> SyncFolder {
    try SyncFolder.open(
      at: root.appendingPathComponent(name).path, schemas: [Note.schema, tag],
      options: .init(deviceName: name, clock: { epoch }, fileSystem: fileSystem))
  }

  @Test func manyEditsOfTwoModelsAreOneTransactionWithOneFsync() throws {
    try withTemporaryFolder { root in
      let files = ScriptedFileSystem()
      let folder = try Self.open(root, "a", fileSystem: files)
      try folder.save(Note(key: "old", text: "Going", at: epoch))
      files.clearLog()
      let notes = (0..<500).map { Note(key: "n\($0)", text: "Note \($0)", at: epoch) }
      let count = try folder.write { tx in
        for note in notes { try tx.save(note) }
        for note in notes.prefix(10) { try tx.save(Self.tag("t-\(note.key)", on: note)) }
        try tx.update(Note.self, id: notes[0].id) { $0.text = "First, edited" }
        try tx.delete(Note.self, id: .derived(model: "note", naturalKey: "old"))
        return notes.count
      }
      #expect(count == 500)
      let storeSyncs = files.calls.filter {
        $0.operation == .fsync && $0.path.hasSuffix("/default.store")
      }
      #expect(storeSyncs.count == 1, "\(storeSyncs)")
      #expect(folder.records(of: "note").count == 500)
      #expect(folder.records(of: "tag").count == 10)
      #expect(folder.fetch(Note.self, id: notes[0].id)?.text == "First, edited")
      // Saved once, as updated: one row per record.
      let reopened = try Self.open(root, "a")
      #expect(reopened.records(of: "note").count == 500)
      #expect(reopened.local?.content.rows.count == 510)
      #expect(reopened.local?.content.tombstones.count == 1)
    }
  }

  @Test func aRefusalAnywhereInTheBodyWritesNothing() throws {
    try withTemporaryFolder { root in
      let folder = try Self.open(root, "a")
      try folder.save(Note(key: "kept", text: "Kept", at: epoch))
      let before = FolderSnapshot(of: root.path)
      // An invalid record (an empty text) among valid ones.
      let invalid = #expect(throws: StashError.self) {
        try folder.write { tx in
          try tx.save(Note(key: "a", text: "A", at: epoch))
          try tx.delete(Note.self, id: .derived(model: "note", naturalKey: "kept"))
          try tx.save(Note(key: "b", text: "", at: epoch))
        }
      }
      #expect(invalid?.message.contains("A note needs a text") == true)
      // The body's own refusal.
      #expect(throws: StashError.self) {
        try folder.write { tx in
          try tx.save(Note(key: "c", text: "C", at: epoch))
          throw StashError(.refused, "Changed my mind")
        }
      }
      // A record of a model the folder does not have, and a missing record.
      #expect(throws: StashError.self) {
        try folder.write { tx in try tx.save(Item(name: "Tube", createdAt: epoch)) }
      }
      #expect(throws: StashError.self) {
        try folder.write { tx in
          try tx.delete(Note.self, id: .derived(model: "note", naturalKey: "nothing"))
        }
      }
      #expect(FolderSnapshot(of: root.path).differences(from: before) == [])
      #expect(folder.all(Note.self).map(\.key) == ["kept"])
    }
  }

  @Test func readsInsideSeeTheTransactionsOwnEdits() throws {
    try withTemporaryFolder { root in
      let folder = try Self.open(root, "a")
      let note = Note(key: "n", text: "One", at: epoch)
      try folder.write { tx in
        #expect(tx.fetch(Note.self, id: note.id) == nil)
        try tx.save(note)
        #expect(tx.fetch(Note.self, id: note.id)?.text == "One")
        try tx.update(Note.self, id: note.id) { $0.text = "Two" }
        try tx.delete(Note.self, id: note.id)
        #expect(tx.record(note.record.key) == nil)
        try tx.save(Note(key: "n", text: "Three", at: epoch))
      }
      #expect(folder.all(Note.self).map(\.text) == ["Three"])
      #expect(folder.local?.content.rows.count == 1)
    }
  }

  @Test func aTransactionTravelsToTheOtherDeviceWhole() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      for name in ["a", "b"] { try Self.open(root, name).enableSync(cloud: cloud.path) }
      let a = try Self.open(root, "a")
      let notes = (0..<300).map { Note(key: "n\($0)", text: "Note \($0)", at: epoch) }
      try a.write { tx in
        for note in notes { try tx.save(note) }
        try tx.save(Self.tag("first", on: notes[0]))
      }
      let exported = try a.sync()
      #expect(exported.versionsExported == 301)
      let b = try Self.open(root, "b")
      #expect(try b.sync().appliedLocally == 301)
      #expect(b.records(of: "note").count == 300 && b.records(of: "tag").count == 1)
      // A delete of many, as one transaction, arrives as one too.
      try b.write { tx in
        for note in notes.prefix(100) { try tx.delete(Note.self, id: note.id) }
      }
      _ = try b.sync()
      let again = try Self.open(root, "a")
      _ = try again.sync()
      #expect(again.records(of: "note").count == 200)
    }
  }
}
