import Foundation
import LocalStore
import Stash
import StashModel
import StashTestSupport
import Testing

/// A sync writes the local index once (issue 26, items 4 and 5): the index its pass's save
/// builds on another core waits, unsealed, for the digest and status sections computed during
/// the export, and is written with them. It was written, read back and written again: at
/// 100,000 items two 13 MB writes, and the read's and the new file's buffers at the end of a
/// first sync, beside both stores.
@Suite struct IndexSealTests {
  @Test func aFirstSyncWritesTheLocalIndexOnceWithItsSections() throws {
    try withTemporaryFolder { folder in
      let house = try FocusedHistoryTests.Household(folder)
      try house.open(house.a).folder.enableSync(cloud: house.cloud.path)
      let a = try LocalStatusFromIndexTests.open(house, house.a)
      for number in 0..<1200 {
        try a.addItem(Item(name: "Tube \(number)", quantity: 4, createdAt: epoch))
      }
      // The index is written at every save: the pass's save builds it on another core.
      let files = CountingFileSystem()
      var options = house.options(house.a.lastPathComponent)
      options.fileSystem = files
      _ = try DeviceFolder.open(at: house.a.path, options: options).folder.sync()
      #expect(files.renames(toFileEndingWith: "/default.store.index") == 1)
      let size = try #require(
        try FileManager.default.attributesOfItem(atPath: house.a.path + "/default.store.index")[
          .size] as? Int)
      let read = files.reads(ofFileEndingWith: "/default.store.index").bytes
      #expect(read * 10 < size, "read \(read) bytes of the \(size) written")
      // Its sections are there: status reads the store through the index, as the whole says.
      try LocalStatusFromIndexTests.expectSameStatus(house, house.a, fromIndex: true)
    }
  }
}
