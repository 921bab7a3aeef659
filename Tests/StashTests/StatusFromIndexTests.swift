import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// `sync status` does not read the mirror whole: when the shared folder holds nothing the
/// mirror has not seen, the mirror opens through its index holding no record's versions, and
/// what status needs of every version (the records with concurrent versions, the photos they
/// name) comes from the index's summary. Its answer is the whole mirror's in every case.
@Suite struct StatusFromIndexTests {
  typealias Household = FocusedHistoryTests.Household

  /// Everything `sync status` shows, in words (times, counts, lists in their order).
  static func shown(_ device: DeviceFolder) -> String {
    let status = device.folder.syncStatus()
    let overview = device.syncOverview(leavingOut: status.otherZones)
    let mirror: String
    switch status.mirror {
    case .success(let id): mirror = id.rawValue
    case .failure(let error): mirror = "\(error)"
    }
    let peers = overview.peers.map {
      "\($0.device) \($0.name ?? "-") \(String(describing: $0.wroteAt)) \($0.segments ?? -1)"
    }
    return [
      "mirror \(mirror) zone \(status.zone ?? "-")",
      "import \(String(describing: status.lastImport)) export \(String(describing: status.lastExport))",
      "pending exports \(status.pendingExports) records \(overview.pendingRecords)",
      "conflicts \(status.openConflicts) concurrent \(overview.concurrentInFolder)",
      "digest \(overview.digest.overall)",
      "waiting \(status.waiting) rejected \(status.rejected)",
      "stopped \(String(describing: status.exportStopped))",
      "problem \(status.folderProblem ?? "-") zone file missing \(status.zoneFileMissing)",
      "other zones \(status.otherZones.count)",
      "photos \(status.photosToPublish.map { "\($0)" })",
      "peers \(peers)",
    ].joined(separator: "\n")
  }

  /// Expects status through the index to say what status over the whole mirror says, and
  /// (for `focused`) the mirror to have been opened through the index.
  static func expectSameStatus(_ house: Household, _ home: URL, focused: Bool) throws {
    // Status first: a whole open writes the index again.
    let device = try house.open(home)
    device.folder.openMirrorForStatus()
    let got = shown(device)
    let complete = device.folder.mirror.store?.content.isComplete
    #expect(complete == !focused, "\(home.lastPathComponent): the mirror was read whole")
    let whole = try house.open(home)
    let expected = shown(whole)
    #expect(whole.folder.mirror.store?.content.isComplete == true)
    #expect(got == expected, "\(home.lastPathComponent)")
  }

  /// A household whose shared folder holds concurrent versions of one record, and a photo
  /// the folder lacks.
  static func makeHousehold(_ folder: URL) throws -> (Household, photo: String) {
    let house = try FocusedHistoryTests.makeHousehold(folder)
    let path = folder.appendingPathComponent("photo.jpg")
    try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: path)
    let a = try house.open(house.a)
    let photo = try a.storePhoto(at: path.path)
    try a.addItem(Item(name: "Framed", quantity: 1, photo: photo, createdAt: epoch))
    try house.open(house.a).editItem("Tube 20") { $0.notes = "here" }
    try house.open(house.b).editItem("Tube 20") { $0.notes = "there" }
    for home in [house.a, house.b, house.a] { try house.sync(home) }
    // The folder loses the photo (a sync tool removed it).
    try FileManager.default.removeItem(
      at: house.cloud.appendingPathComponent("blobs/\(photo.digest.hex)"))
    // Changes not synced yet.
    _ = try house.open(house.a).consume("Tube 21")
    return (house, photo.digest.hex)
  }

  @Test func statusReadsTheMirrorThroughItsIndexAndSaysWhatTheWholeMirrorSays() throws {
    try withTemporaryFolder { folder in
      let (house, photo) = try Self.makeHousehold(folder)
      try Self.expectSameStatus(house, house.a, focused: true)
      try Self.expectSameStatus(house, house.b, focused: true)
      let a = try house.open(house.a)
      a.folder.openMirrorForStatus()
      let overview = a.syncOverview()
      #expect(overview.concurrentInFolder >= 1)
      #expect(a.folder.syncStatus().photosToPublish.map { "\($0)" }.joined().contains(photo))
      #expect(!overview.pendingRecords.isEmpty && overview.peers.count == 1)
    }
  }

  @Test func anUnreadSegmentOrAMissingOrDamagedIndexReadsTheMirrorWhole() throws {
    try withTemporaryFolder { folder in
      let (house, _) = try Self.makeHousehold(folder)
      // b's new segment, which a has not read: the survey needs the versions it knows.
      _ = try house.open(house.b).consume("Tube 22")
      try house.sync(house.b)
      try Self.expectSameStatus(house, house.a, focused: false)
      try house.sync(house.a)
      try Self.expectSameStatus(house, house.a, focused: true)
      let index = house.a.path + "/cloud.store.index"
      try MirrorIndexTests.flipByte(at: 40, of: index)
      try Self.expectSameStatus(house, house.a, focused: false)
      // The whole open wrote it again; a missing one is the same.
      try FileManager.default.removeItem(atPath: index)
      try Self.expectSameStatus(house, house.a, focused: false)
    }
  }

  @Test func theIndexSummaryHoldsTheConcurrentRecordsAndThePhotosOfTheWholeMirror() throws {
    try withTemporaryFolder { folder in
      let (house, _) = try Self.makeHousehold(folder)
      let whole = try #require(try house.open(house.a).folder.mirror.store)
      let focused = try MirrorStore.open(
        folder: house.a.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: house.a.path), access: .reading, focus: [],
        indexPolicy: MirrorHistory.eager)
      let summary = try #require(focused.indexedSummary())
      #expect(focused.content.isComplete == false)
      #expect(whole.indexedSummary() == nil)
      let concurrent = Set(
        whole.content.keys.filter { whole.content.side(for: $0).isConcurrent })
      #expect(!concurrent.isEmpty && summary.concurrentKeys == concurrent)
      #expect(!summary.photos.isEmpty && summary.photos == whole.content.photos(summary: nil))
      #expect(focused.content.concurrentRecordCount(summary: summary) == concurrent.count)
      #expect(focused.content.photos(summary: summary) == summary.photos)
    }
  }
}
