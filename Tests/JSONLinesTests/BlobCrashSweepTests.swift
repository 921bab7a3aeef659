import Foundation
import JSONLines
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A crash at every moment of storing a photo: its name never holds anything but the whole
/// photo, and storing it again works.
@Suite struct BlobCrashSweepTests {
  @Test func aCrashAnywhereInStoringAPhotoLeavesItWholeOrAbsent() throws {
    try withTemporaryFolder(inMemory: true) { folder in
      var random = SeededRandom(seed: 5)
      let photo = random.bytes(600)
      let files = ScriptedFileSystem()
      let reference = BlobStore(
        folder: folder.appendingPathComponent("reference").path, fileSystem: files)
      files.clearLog()
      let ref = try reference.store(photo)
      let points = CrashSweep.points(of: files.calls, seed: 6, garbledEvery: 3)
      var present = 0
      for point in points {
        let trial = folder.appendingPathComponent("trial")
        try? FileManager.default.removeItem(at: trial)
        let files = ScriptedFileSystem()
        files.crash(atCall: point.call, point.crash)
        _ = try? BlobStore(folder: trial.path, fileSystem: files).store(photo)
        let after = BlobStore(folder: trial.path)
        let status = after.check(ref)
        #expect(status == .present || status == .missing, "\(point): \(status)")
        if status == .present { present += 1 }
        try after.store(photo)
        #expect(after.check(ref) == .present, "\(point)")
      }
      print("BlobCrashSweepTests: \(points.count) crashes, \(present) left the photo stored")
    }
  }
}
