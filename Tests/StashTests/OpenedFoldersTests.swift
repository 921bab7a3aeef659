import Foundation
import Stash
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// ``SyncFolder/Options/opened`` sees every folder opened with the options, also by the calls
/// that open one themselves (a sync through its seal, `doctor`'s examination): the `stash`
/// tool keeps each until it exits instead of freeing every record of both stores just before
/// the process ends (issue 26, item 5).
@Suite struct OpenedFoldersTests {
  /// The homes of the folders `opened` was called with.
  final class Seen: Sendable {
    let homes = Mutex<[String]>([])
    func options(_ options: SyncFolder.Options) -> SyncFolder.Options {
      var options = options
      options.opened = { [self] folder in homes.withLock { $0.append(folder.home) } }
      return options
    }
  }

  @Test func aSyncThroughItsSealAndAnExaminationHandOverTheFoldersTheyOpen() throws {
    try withTemporaryFolder { root in
      let pair = try CodablePair(root, schemas: [UncountedThing.schema])
      func save(_ name: String) throws {
        try pair.open("a").write { tx in
          try tx.save(
            UncountedThing(
              id: RecordID.make(), name: name, note: nil,
              updatedAt: Date(timeIntervalSince1970: 1_764_441_600)))
        }
      }
      try save("one")
      _ = try pair.open("a").sync()  // writes the seal
      try save("two")  // a sync with something to send opens the folder (through its index)
      let home = root.appendingPathComponent("a").path
      let registry = try SchemaRegistry([UncountedThing.schema])
      let seen = Seen()
      _ = try SyncFolder.sync(at: home, registry: registry, options: seen.options(.init()))
      #expect(!seen.homes.withLock { $0 }.isEmpty)
      #expect(seen.homes.withLock { $0 }.allSatisfy { $0 == home })

      let examined = Seen()
      let device = root.appendingPathComponent("device").path
      _ = try DeviceFolder.open(at: device, options: .init(createIfMissing: true))
      _ = try DeviceFolder.examine(at: device, options: examined.options(.init()))
      #expect(examined.homes.withLock { $0 } == [device])
    }
  }
}
