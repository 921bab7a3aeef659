import Foundation
import JSONLines
import Stash
import StashModel
import StashTestSupport
import Testing

/// A save that meets a full disk: the message says what happened (the disk is full, nothing
/// of the change was saved, the store is as it was) and what to do, and nothing else is true
/// of it (a command that failed has no changes "still there" to save again).
@Suite struct FullDiskTests {
  @Test func aConsumeOnAFullDiskSaysNothingWasSavedAndToFreeSpace() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let device = try openDevice(folder, fileSystem: files)
      try device.addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      let store = folder.appendingPathComponent("default.store").path
      let before = try Data(contentsOf: URL(fileURLWithPath: store))
      files.inject(.fullDisk(keepingBytes: 12))
      #expect {
        try device.consume("Soap", count: 2)
      } throws: { error in
        guard let failure = error as? StashError else { return false }
        let message = failure.message
        return failure.category == .refused && message.contains("No space left on device")
          && message.contains("none of it was saved and the store is as it was before")
          && message.hasSuffix("free some space on the disk, then make the change again")
          && !message.contains("still there")
      }
      #expect(files.allFaultsFired)
      #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the file is as it was")
      #expect(try device.item("Soap").quantity == 5)
      try device.consume("Soap", count: 2)
      #expect(try openDevice(folder, create: false).item("Soap").quantity == 3)
    }
  }
}
