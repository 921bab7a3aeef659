import Foundation
import MeterSettings
import Stash
import StashModel
import StashTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A device folder knows whose it is (issue 24, item 1): `schemas.json` records the models it
/// holds, and a tool that does not know them all (another tool, or the same one with some of
/// its models only) is refused before anything is read or written, whatever the store holds.
@Suite struct FolderModelsTests {
  /// The shapes a meter folder's store can have: each used to fail differently (live rows
  /// hidden, or the whole store refused as damaged because of a conflict line).
  enum Shape: String, CaseIterable, Sendable {
    /// Live rows only, with the record a new folder writes.
    case rows
    /// Rows, a mirror and an open conflict, from a folder made before the record existed
    /// (`Fixtures/formats/meters-before-schemas`).
    case conflictWithoutRecord
    /// The same folder after its own tool opened it once (and recorded its models).
    case conflictWithRecord
  }

  private static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

  private static func options(create: Bool = true) -> SyncFolder.Options {
    SyncFolder.Options(createIfMissing: create, deviceName: "test", clock: { epoch })
  }

  /// A meter folder of `shape` at `home`.
  private static func meterFolder(_ shape: Shape, at home: URL) throws {
    switch shape {
    case .rows:
      let meters = try MeterFolder(at: home.path, options: options())
      try meters.pair(mac: "AA:BB:CC:DD:EE:FF", modelType: "UM25C")
    case .conflictWithoutRecord, .conflictWithRecord:
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/meters-before-schemas"), to: home)
      if shape == .conflictWithRecord {
        let meters = try MeterFolder(at: home.path, options: options(create: false))
        #expect(meters.folder.conflicts().count == 1)
      }
    }
    #expect(FileManager.default.fileExists(atPath: home.path + "/default.store"))
  }

  @Test(arguments: Shape.allCases)
  func theInventoryRefusesAMeterFolderAndChangesNothing(shape: Shape) throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try Self.meterFolder(shape, at: home)
      let before = FolderSnapshot(of: home.path)
      let attempts: [(String, () throws -> Void)] = [
        ("open", { _ = try DeviceFolder.open(at: home.path) }),
        (
          "open for reading",
          { _ = try DeviceFolder.open(at: home.path, options: .init(access: .reading)) }
        ),
        ("examine", { _ = try DeviceFolder.examine(at: home.path) }),
        ("repair", { _ = try DeviceFolder.repair(at: home.path) }),
        ("sync", { _ = try DeviceFolder.sync(at: home.path) }),
      ]
      for (name, attempt) in attempts {
        do {
          try attempt()
          Issue.record("\(shape) \(name): the inventory opened a meter folder")
        } catch let error as StashError {
          #expect(error.category == .refused, "\(shape) \(name): \(error)")
          #expect(
            error.message.contains("belongs to another tool")
              && error.message.contains("'meter', 'meter-sighting'"),
            "\(shape) \(name): \(error.message)")
        }
        #expect(FolderSnapshot(of: home.path).differences(from: before) == [], "\(shape) \(name)")
      }
    }
  }

  @Test(arguments: Shape.allCases)
  func someOfAFoldersModelsAreRefusedWhateverTheStoreHolds(shape: Shape) throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try Self.meterFolder(shape, at: home)
      let before = FolderSnapshot(of: home.path)
      for access in [SyncFolder.Access.reading, .writing] {
        var options = Self.options(create: false)
        options.access = access
        #expect {
          _ = try SyncFolder.open(at: home.path, schemas: [Meter.schema], options: options)
        } throws: { error in
          let failure = error as? StashError
          return failure?.category == .refused
            && failure?.message.contains("knows only 'meter'") == true
            && failure?.message.contains("'meter-sighting' would be hidden") == true
        }
      }
      #expect(FolderSnapshot(of: home.path).differences(from: before) == [])
      // Its own tool opens it, whole.
      let meters = try MeterFolder(at: home.path, options: Self.options(create: false))
      #expect(meters.meters.count == 1)
    }
  }

  @Test func aMeterToolRefusesAnInventoryFolder() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("home")
      let device = try DeviceFolder.open(at: home.path, options: .init(createIfMissing: true))
      _ = try device.addItem(Item(name: "Koleston 7/1", quantity: 5, createdAt: Self.epoch))
      let before = FolderSnapshot(of: home.path)
      #expect {
        _ = try MeterFolder(at: home.path, options: Self.options())
      } throws: { error in
        (error as? StashError)?.message.contains(
          "holds the models 'item', 'location', 'reminder'") == true
      }
      #expect(FolderSnapshot(of: home.path).differences(from: before) == [])
    }
  }

  @Test func aFolderWithoutARecordGetsOneFromItsOwnTool() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try Self.meterFolder(.conflictWithoutRecord, at: home)
      let record = home.appendingPathComponent("schemas.json")
      #expect(!FileManager.default.fileExists(atPath: record.path))
      _ = try MeterFolder(at: home.path, options: Self.options(create: false))
      #expect(
        try String(contentsOf: record, encoding: .utf8)
          == #"{"format":"stash.schemas","version":1,"models":{"meter":1,"meter-sighting":1}}"#
          + "\n")
    }
  }

  // MARK: - A tool's own release adds a model, or a newer release wrote the folder

  private static func schema(_ model: String, version: Int = 1) throws -> Schema {
    try Schema(model: model, version: version, fields: [FieldSpec("title", .string)])
  }

  private static func save(_ model: String, in folder: SyncFolder, _ schema: Schema) throws {
    try folder.save(Record(schema: schema, id: .make(), values: [.string("a \(model)")]))
  }

  @Test func aReleaseThatAddsAModelUpgradesTheFolderAndTheOldReleaseIsThenRefused() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("app").path
      let note = try Self.schema("note")
      let tag = try Self.schema("tag")
      try Self.save(
        "note", in: SyncFolder.open(at: home, schemas: [note], options: Self.options()), note)
      // Release 2 knows a tag too: the folder opens, keeps its notes, and records both.
      let release2 = try SyncFolder.open(at: home, schemas: [note, tag], options: Self.options())
      #expect(release2.records(of: "note").count == 1)
      try Self.save("tag", in: release2, tag)
      #expect(
        try String(contentsOfFile: home + "/schemas.json", encoding: .utf8)
          .contains(#""models":{"note":1,"tag":1}"#))
      // Release 1 would hide the tags: refused.
      let before = FolderSnapshot(of: home)
      #expect {
        _ = try SyncFolder.open(at: home, schemas: [note], options: Self.options())
      } throws: { error in
        (error as? StashError)?.message.contains("records of 'tag' would be hidden") == true
      }
      #expect(FolderSnapshot(of: home).differences(from: before) == [])
    }
  }

  @Test func aNewerVersionOfAModelIsRefusedAndAnOlderOneUpgraded() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("app").path
      try Self.save(
        "note",
        in: SyncFolder.open(at: home, schemas: [Self.schema("note")], options: Self.options()),
        Self.schema("note"))
      _ = try SyncFolder.open(
        at: home, schemas: [Self.schema("note", version: 2)], options: Self.options())
      let before = FolderSnapshot(of: home)
      #expect {
        _ = try SyncFolder.open(at: home, schemas: [Self.schema("note")], options: Self.options())
      } throws: { error in
        (error as? StashError)?.message.contains(
          "holds the model 'note' at version 2, written by a newer release") == true
      }
      #expect(FolderSnapshot(of: home).differences(from: before) == [])
      #expect(throws: (any Error).self) { try Schema(model: "x", version: 0, fields: []) }
    }
  }

  @Test func aRecordThatIsNotOneIsReadAgainFromTheStoresAndANewerOneIsRefused() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try Self.meterFolder(.rows, at: home)
      let record = home.appendingPathComponent("schemas.json")
      try Data("not json".utf8).write(to: record)
      // Garbage says nothing: the stores say it is a meter folder.
      #expect(throws: StashError.self) { _ = try DeviceFolder.open(at: home.path) }
      _ = try MeterFolder(at: home.path, options: Self.options(create: false))
      #expect(try String(contentsOf: record, encoding: .utf8).contains(#""meter":1"#))
      let newer = #"{"format":"stash.schemas","version":2,"models":{}}"# + "\n"
      try Data(newer.utf8).write(to: record)
      #expect {
        _ = try MeterFolder(at: home.path, options: Self.options(create: false))
      } throws: { error in
        (error as? StashError)?.category == .damaged
          && (error as? StashError)?.message.contains("of format 2, newer") == true
      }
      #expect(try String(contentsOf: record, encoding: .utf8) == newer)
    }
  }
}

/// The record is input like any file: what is not a small regular file is not read (a FIFO
/// never hangs an open), and a store with a damaged last transaction still says whose it is.
@Suite struct FolderModelsHostileTests {
  private static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

  @Test(arguments: ["folder", "fifo"])
  func aRecordThatIsNotAFileIsReadFromTheStoresInstead(kind: String) throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/meters-before-schemas"), to: home)
      let record = home.appendingPathComponent("schemas.json").path
      if kind == "folder" {
        try FileManager.default.createDirectory(atPath: record, withIntermediateDirectories: false)
      } else {
        #expect(mkfifo(record, 0o600) == 0)
      }
      let error = #expect(throws: StashError.self) { _ = try DeviceFolder.open(at: home.path) }
      #expect(error?.message.contains("belongs to another tool") == true)
      // Its own tool opens it (the record cannot be written over what is there: no matter).
      let meters = try MeterFolder(
        at: home.path,
        options: .init(createIfMissing: false, deviceName: "test", clock: { Self.epoch }))
      #expect(meters.meters.count == 1)
    }
  }

  @Test func aDamagedLastTransactionStillSaysWhoseTheFolderIs() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("meters")
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/meters-before-schemas"), to: home)
      let store = home.appendingPathComponent("default.store")
      let handle = try FileHandle(forWritingTo: store)
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(#"{"crc":"00000000","tx":99,"op":{}}"#.utf8 + [10]))
      try handle.close()
      let before = FolderSnapshot(of: home.path)
      let error = #expect(throws: StashError.self) { _ = try DeviceFolder.repair(at: home.path) }
      #expect(error?.message.contains("'meter', 'meter-sighting'") == true)
      #expect(FolderSnapshot(of: home.path).differences(from: before) == [])
    }
  }
}
