import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A copied device folder takes its own identity with its first saved write, never with a
/// refused one, and a rewrite that fails part-way is finished by the next write, with the same
/// identity and no move lost.
@Suite struct IncarnationStoreTests {
  private func original(in folder: URL) throws -> (home: String, item: RecordID) {
    let home = folder.appendingPathComponent("original").path
    let cloud = folder.appendingPathComponent("cloud").path
    try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: true)
    let device = try DeviceFolder.open(at: home)
    let item = try device.addItem(Item(name: "Soap", quantity: 10, unit: "bar", createdAt: .now()))
    try device.folder.enableSync(cloud: cloud)
    _ = try DeviceFolder.open(at: home).folder.sync()
    return (home, item.id)
  }

  private func headerDevice(_ path: String) -> DeviceID? {
    LogHeader.read(atPath: path, fileSystem: POSIXFileSystem())?.deviceID
  }

  @Test func aRefusedCommandOnACopyWritesNothingAndTheFirstSavedOneTakesTheIdentity() throws {
    try withTemporaryFolder { folder in
      let (home, item) = try original(in: folder)
      let copy = folder.appendingPathComponent("copy").path
      try FileManager.default.copyItem(atPath: home, toPath: copy)
      let before = FolderSnapshot(of: copy)
      let opened = try DeviceFolder.open(at: copy)
      #expect(throws: StashError.self) { try opened.consume(item.rawValue, count: 11) }
      let changed = FolderSnapshot(of: copy).differences(from: before)
      #expect(!changed.contains { $0.hasSuffix(".store") }, "refused: no store changed: \(changed)")
      let original = headerDevice(home + "/default.store")
      try opened.consume(item.rawValue, count: 1)
      let local = headerDevice(copy + "/default.store")
      #expect(local != nil && local != original)
      #expect(headerDevice(copy + "/cloud.store") == local, "both stores name the new device")
      let stock = try DeviceFolder.open(at: copy).item(item.rawValue).stock
      #expect(stock.decrements == [local!: 1], "the move is the copy's own: \(stock)")
    }
  }

  @Test(arguments: 0..<4)
  func aRewriteThatFailsIsFinishedByTheNextWriteWithTheSameIdentity(skipping: Int) throws {
    try withTemporaryFolder { folder in
      let (home, item) = try original(in: folder)
      let copy = folder.appendingPathComponent("copy").path
      try FileManager.default.copyItem(atPath: home, toPath: copy)
      let files = ScriptedFileSystem()
      files.inject(.rename, afterSkipping: skipping)
      var options = DeviceFolder.Options()
      options.fileSystem = files
      let faulty = try DeviceFolder.open(at: copy, options: options)
      try faulty.consume(item.rawValue, count: 1)  // saved, whatever the rewrite did
      files.clearFaults()
      try DeviceFolder.open(at: copy).consume(item.rawValue, count: 1)
      let local = try #require(headerDevice(copy + "/default.store"))
      #expect(local != headerDevice(home + "/default.store"))
      #expect(headerDevice(copy + "/cloud.store") == local, "both stores name one device")
      let stock = try DeviceFolder.open(at: copy).item(item.rawValue).stock
      #expect(stock.value == 8, "no move lost: \(stock)")
      #expect(stock.decrements[headerDevice(home + "/default.store")!] == nil)
    }
  }
}
