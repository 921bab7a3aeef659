import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashFiles
import StashModel
import StashTestSupport
import Testing

@Suite struct PhotoTests {
  private func photoFile(in folder: URL, size: Int, seed: UInt64) throws -> (
    path: String, bytes: [UInt8]
  ) {
    var random = SeededRandom(seed: seed)
    let bytes = random.bytes(size)
    let path = folder.appendingPathComponent("photo-\(seed).jpg").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (path, bytes)
  }

  @Test func aConsumeOnAnItemWithAFiveMegabytePhotoAppendsWellUnderOneKilobyte() throws {
    try withTemporaryFolder { folder in
      let (path, bytes) = try photoFile(in: folder, size: 5 * 1024 * 1024, seed: 5)
      let device = try openDevice(folder.appendingPathComponent("home"))
      let photo = try device.storePhoto(at: path)
      #expect(photo.size == Int64(bytes.count))
      try device.addItem(Item(name: "Koleston", quantity: 5, photo: photo, createdAt: epoch))
      let store = device.folder.local!.path
      let before = try fileSize(store)
      try device.consume("Koleston")
      let appended = try fileSize(store) - before
      #expect(appended > 0 && appended < 1024, "appended \(appended) bytes")
      #expect(try device.folder.blobs.read(photo) == bytes)
    }
  }

  @Test func photoDataSurvivesReopeningBothStores() throws {
    try withTemporaryFolder { folder in
      let (path, bytes) = try photoFile(in: folder, size: 10_000, seed: 6)
      let home = folder.appendingPathComponent("home")
      let device = try openDevice(home)
      try device.folder.saveEntitlement(.yearlySubscription)
      let photo = try device.storePhoto(at: path)
      try device.addItem(Item(name: "Koleston", photo: photo, createdAt: epoch))
      let reopened = try openDevice(home)
      let mirror = try #require(reopened.folder.mirror.store)
      let item = try reopened.item("Koleston")
      try mirror.update { _, transaction in
        transaction.write(
          .record(item.record), parents: [], author: mirror.content.deviceID, at: epoch)
      }
      let again = try openDevice(home)
      #expect(try again.item("Koleston").photo == photo)
      let mirrored = try #require(
        again.folder.mirror.store?.content.side(for: item.record.key).winner)
      #expect(mirrored.snapshot.record?[field: "photo"] == .blob(photo))
      #expect(try again.folder.blobs.read(photo) == bytes)
    }
  }

  @Test func aMissingOrCorruptBlobIsReportedNeverAccepted() throws {
    try withTemporaryFolder { folder in
      let blobs = BlobStore(deviceFolder: folder.path)
      let ref = try blobs.store(Array("photo bytes".utf8))
      #expect(blobs.check(ref) == .present)
      try Data("photo bytez".utf8).write(to: URL(fileURLWithPath: blobs.path(for: ref.digest)))
      guard case .corrupt = blobs.check(ref) else {
        Issue.record("a blob whose bytes do not match its name must be reported")
        return
      }
      #expect(throws: BlobError.self) { try blobs.read(ref) }
      try FileManager.default.removeItem(atPath: blobs.path(for: ref.digest))
      #expect(blobs.check(ref) == .missing)
      #expect(throws: BlobError.missing(ref)) { try blobs.read(ref) }
      try blobs.store(Array("photo bytes".utf8))
      #expect(blobs.check(ref) == .present, "storing the right bytes again repairs it")
    }
  }

  @Test func aPhotoThatCannotBeReadIsRefusedByName() throws {
    try withTemporaryFolder { folder in
      let device = try openDevice(folder)
      #expect {
        try device.storePhoto(at: folder.appendingPathComponent("missing.jpg").path)
      } throws: { error in
        "\(error)".contains("missing.jpg")
      }
    }
  }
}
