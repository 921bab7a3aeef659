import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import Stash
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// A tool's own model, as another Swift tool would declare it.
struct Note: RecordConvertible, Hashable {
  static let schema = try! Schema(
    model: "note",
    fields: [
      FieldSpec("key", .string), FieldSpec("text", .string),
      FieldSpec("draft", .optional(.string), deviceLocal: true),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt",
    validate: { (record) throws(ModelError) in
      guard case .string(let text)? = record[field: "text"], !text.isEmpty else {
        throw ModelError("A note needs a text")
      }
    })

  var id: RecordID
  var key: String
  var text: String
  var draft: String?
  var updatedAt: Timestamp

  init(key: String, text: String, at time: Timestamp) {
    self.id = .derived(model: "note", naturalKey: key)
    self.key = key
    self.text = text
    self.updatedAt = time
  }

  init(record: Record) throws(ModelError) {
    guard record.schema == Self.schema else { throw ModelError("Not a note") }
    id = record.id
    key = try record.value("key")
    text = try record.value("text")
    draft = try record.value("draft")
    updatedAt = try record.value("updatedAt")
  }

  var record: Record {
    try! Record(
      schema: Self.schema, id: id,
      values: [FieldValue(key), FieldValue(text), FieldValue(draft), FieldValue(updatedAt)])
  }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
  private let time = Mutex(epoch)

  var now: Timestamp { time.withLock { $0 } }

  func advance(_ seconds: Double) {
    time.withLock { $0 = Timestamp(secondsSince1970: $0.secondsSince1970 + seconds)! }
  }
}

/// Two devices of a tool with its own schema, sharing one cloud folder.
struct NotePair {
  let root: URL
  let cloud: URL
  let clock = TestClock()

  init(_ root: URL) throws {
    self.root = root
    cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    for name in ["a", "b"] { try open(name).enableSync(cloud: cloud.path) }
  }

  func open(_ name: String) throws -> SyncFolder {
    try SyncFolder.open(
      at: root.appendingPathComponent(name).path, schemas: [Note.schema],
      options: .init(deviceName: name, clock: { [clock] in clock.now }))
  }

  func advance(_ seconds: Double) { clock.advance(seconds) }
}

@Suite struct SyncFolderTests {
  @Test func aFolderOfAnotherSchemaSavesReadsAndDeletesItsOwnRecords() throws {
    try withTemporaryFolder { root in
      let folder = try NotePair(root).open("a")
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try folder.save(note)
      #expect(folder.fetch(Note.self, id: note.id) == note)
      #expect(folder.all(Note.self) == [note])
      try folder.update(Note.self, id: note.id) { $0.text = "Milk, eggs" }
      #expect(folder.fetch(Note.self, id: note.id)?.text == "Milk, eggs")
      try folder.delete(Note.self, id: note.id)
      #expect(folder.all(Note.self).isEmpty)
      #expect(folder.local?.content.tombstones[note.record.key] != nil)
    }
  }

  @Test func aRecordFailingItsSchemasChecksOrOfAnUnknownModelIsRefused() throws {
    try withTemporaryFolder { root in
      let folder = try NotePair(root).open("a")
      #expect(throws: StashError.self) { try folder.save(Note(key: "x", text: "", at: epoch)) }
      let item = Item(name: "Koleston", createdAt: epoch)
      let error = #expect(throws: StashError.self) { try folder.save(item) }
      #expect(error?.message.contains("'item'") == true)
      #expect(folder.records(of: "note").isEmpty)
    }
  }

  @Test func recordsOfAToolsSchemaTravelBetweenTwoDevices() throws {
    try withTemporaryFolder { root in
      let pair = try NotePair(root)
      let a = try pair.open("a")
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try a.save(note)
      #expect(try a.sync().versionsExported == 1)
      let b = try pair.open("b")
      let report = try b.sync()
      #expect(report.appliedLocally == 1)
      #expect(b.fetch(Note.self, id: note.id) == note)
    }
  }

  @Test func anEditOnBothDevicesIsAConflictThatResolves() throws {
    try withTemporaryFolder { root in
      let pair = try NotePair(root)
      let a = try pair.open("a")
      let b = try pair.open("b")
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try a.save(note)
      _ = try a.sync()
      _ = try b.sync()
      pair.advance(10)
      try a.update(Note.self, id: note.id) { $0.text = "Milk from A" }
      try b.update(Note.self, id: note.id) { $0.text = "Milk from B" }
      _ = try a.sync()
      let report = try b.sync()
      #expect(report.newConflicts.count == 1)
      #expect(b.fetch(Note.self, id: note.id)?.text == "Milk from B", "each keeps its own")
      let conflict = try #require(b.conflicts().first)
      try b.resolveConflict(conflict.id.rawValue, keep: .mirror)
      #expect(b.fetch(Note.self, id: note.id)?.text == "Milk from A")
      _ = try b.sync()
      _ = try a.sync()
      #expect(a.fetch(Note.self, id: note.id)?.text == "Milk from A")
      #expect(a.conflicts().isEmpty)
    }
  }

  @Test func refreshSeesWhatAnotherInstanceSaved() throws {
    try withTemporaryFolder { root in
      let pair = try NotePair(root)
      let first = try pair.open("a")
      let second = try pair.open("a")
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try second.save(note)
      #expect(first.fetch(Note.self, id: note.id) == nil, "stale until refreshed")
      try first.refresh()
      #expect(first.fetch(Note.self, id: note.id) == note)
    }
  }

  @Test func theInventoryIsASyncFolderWithTheInventorySchemas() throws {
    try withTemporaryFolder { root in
      let device = try openDevice(root.appendingPathComponent("home"))
      let item = try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      #expect(device.folder.fetch(Item.self, id: item.id) == item)
      #expect(device.folder.schemas.models == ["item", "location", "reminder"])
    }
  }
}

@Suite struct SyncSessionTests {
  @Test func savesSchedulePassesOnceTheGateIsOpenAndPassesWaitInTheBackground() throws {
    try withTemporaryFolder { root in
      let pair = try NotePair(root)
      let a = try pair.open("a")
      let scheduled = Mutex(0)
      let session = try SyncSession(folder: a) { scheduled.withLock { $0 += 1 } }
      try a.save(Note(key: "early", text: "Before the gate", at: epoch))
      #expect(scheduled.withLock { $0 } == 0, "the gate is closed: nothing is scheduled")
      #expect(session.flush() == .gateClosed)
      let first = try session.sync()
      #expect(first.gateOpened && first.copiedToMirror == 1)
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try a.save(note)
      #expect(scheduled.withLock { $0 } == 1)
      #expect(session.coordinator.pending == .keys([note.record.key]))
      session.enterBackground()
      #expect(session.flush() == .inBackground)
      #expect(a.mirror.store?.content.leafSnapshot(of: note.record.key) == nil)
      #expect(session.enterForeground() == .ran([note.record.key]))
      #expect(a.mirror.store?.content.leafSnapshot(of: note.record.key) == note.record.snapshotHash)
      #expect(try session.sync().versionsExported == 1)
    }
  }
}

@Suite struct WiringTests {
  @Test func twoStoresWithSeparateLocksAreAThrownErrorNotATrap() throws {
    try withTemporaryFolder { root in
      let pair = try NotePair(root)
      let a = try pair.open("a")
      let local = try #require(a.local)
      let otherLock = FolderLock(folder: a.home, timeout: 1, fileSystem: POSIXFileSystem())
      let mirror = try MirrorStore.open(
        folder: a.home, schemas: a.schemas, lock: otherLock,
        create: (local.deviceID, epoch, StoreID.make()))
      #expect(throws: WiringError.self) {
        try Reconciler(local: local, mirror: mirror, clock: { epoch })
      }
    }
  }
}
