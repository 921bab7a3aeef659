import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// The local store opens and takes edits whatever state the mirror is in.
@Suite struct LocalAvailabilityTests {
  /// A device folder with one item and a subscription, whose mirror then gets `damage`.
  private func subscribedDevice(
    _ folder: URL, damage: (String) throws -> Void
  ) throws -> String {
    let device = try openDevice(folder)
    try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
    try device.folder.saveEntitlement(.yearlySubscription)
    // The next launch creates cloud.store.
    #expect(try openDevice(folder).folder.mirror.store != nil)
    let mirrorPath = folder.appendingPathComponent(MirrorStore.fileName).path
    #expect(FileManager.default.fileExists(atPath: mirrorPath))
    try damage(mirrorPath)
    return mirrorPath
  }

  private func expectLocalWorks(
    _ folder: URL, fileSystem: any FileSystem = POSIXFileSystem(), reportContains: String
  ) throws {
    let device = try openDevice(folder, fileSystem: fileSystem)
    guard case .unavailable(let reason) = device.folder.mirror else {
      Issue.record("the mirror should be reported unavailable, not \(device.folder.mirror)")
      return
    }
    #expect(reason.contains(reportContains), "report: \(reason)")
    #expect(reason.contains("cloud.store"))
    let after = try device.consume("Koleston")
    #expect(after.quantity == 4)
    #expect(try openDevice(folder, fileSystem: fileSystem).item("Koleston").quantity == 4)
  }

  @Test func garbageInTheMirrorFile() throws {
    try withTemporaryFolder { folder in
      _ = try subscribedDevice(folder) { try write("not a store at all\n{}\n", to: $0) }
      try expectLocalWorks(folder, reportContains: "damaged at line 1")
    }
  }

  @Test func aTruncatedMirrorFile() throws {
    try withTemporaryFolder { folder in
      _ = try subscribedDevice(folder) { path in
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
      }
      try expectLocalWorks(folder, reportContains: "damaged at line 1")
    }
  }

  @Test func anUnreadableMirrorFile() throws {
    try withTemporaryFolder { folder in
      _ = try subscribedDevice(folder) { _ in }
      let files = ScriptedFileSystem()
      files.inject(.denyOpen(suffix: "/" + MirrorStore.fileName))
      try expectLocalWorks(folder, fileSystem: files, reportContains: "Permission denied")
    }
  }

  @Test func aMirrorFromAFutureVersion() throws {
    try withTemporaryFolder { folder in
      _ = try subscribedDevice(folder) { path in
        try FileManager.default.removeItem(atPath: path)
        _ = try Log.create(
          at: path,
          header: LogHeader(
            format: MirrorContent.format, version: 99, storeID: .make(), deviceID: .make(),
            created: epoch))
      }
      try expectLocalWorks(folder, reportContains: "format version 99")
    }
  }

  @Test func anAbsentMirrorIsCreatedForASubscriber() throws {
    try withTemporaryFolder { folder in
      let path = try subscribedDevice(folder) { try FileManager.default.removeItem(atPath: $0) }
      let device = try openDevice(folder)
      #expect(device.folder.mirror.store != nil)
      #expect(FileManager.default.fileExists(atPath: path))
      #expect(try device.consume("Koleston").quantity == 4)
    }
  }

  @Test func withoutSyncThereIsNoMirrorAndEditsWork() throws {
    try withTemporaryFolder { folder in
      let device = try openDevice(folder)
      try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      guard case .notEntitled(.none) = device.folder.mirror else {
        Issue.record("expected no mirror, got \(device.folder.mirror)")
        return
      }
      #expect(try device.consume("Koleston").quantity == 4)
      #expect(
        !FileManager.default.fileExists(
          atPath: folder.appendingPathComponent(MirrorStore.fileName).path))
    }
  }
}

@Suite struct EntitlementTests {
  @Test(arguments: [Entitlement.none, .oneTimeUnlock, .trial])
  func onlyASubscriptionEverCreatesTheMirror(entitlement: Entitlement) throws {
    try withTemporaryFolder { folder in
      let device = try openDevice(folder)
      try device.folder.saveEntitlement(entitlement)
      for _ in 0..<2 {
        let reopened = try openDevice(folder)
        #expect(reopened.folder.mirror.store == nil)
        #expect(reopened.folder.entitlementAtOpen == entitlement)
      }
      #expect(
        !FileManager.default.fileExists(
          atPath: folder.appendingPathComponent(MirrorStore.fileName).path))
    }
  }

  @Test func aSubscriptionOpensTheMirrorAtTheNextOpenNotTheCurrentOne() throws {
    try withTemporaryFolder { folder in
      let mirrorPath = folder.appendingPathComponent(MirrorStore.fileName).path
      let device = try openDevice(folder)
      try device.folder.saveEntitlement(.yearlySubscription)
      #expect(device.folder.mirror.store == nil, "this process keeps what it opened with")
      #expect(device.folder.entitlementAtOpen == .none)
      #expect(!FileManager.default.fileExists(atPath: mirrorPath))
      let next = try openDevice(folder)
      #expect(next.folder.mirror.store != nil)
      #expect(FileManager.default.fileExists(atPath: mirrorPath))
      try next.folder.saveEntitlement(.oneTimeUnlock)
      #expect(next.folder.mirror.store != nil, "losing sync also waits for the next launch")
      #expect(try openDevice(folder).folder.mirror.store == nil)
    }
  }

  @Test func openingForReadingCreatesNothing() throws {
    try withTemporaryFolder { folder in
      let home = folder.appendingPathComponent("not-yet")
      let device = try openDevice(home, create: false)
      #expect(device.items().isEmpty)
      #expect(!FileManager.default.fileExists(atPath: home.path))
    }
  }
}
