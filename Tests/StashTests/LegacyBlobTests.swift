import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Seed 003's legacy JSON blob (items without ids) is imported once.
@Suite struct LegacyBlobTests {
  @Test func theBlobImportsOnceWithNewIdsAndIsLeftInPlace() throws {
    try withTemporaryFolder { root in
      let legacy = root.appendingPathComponent("SavedItems.json")
      let bytes = try Data(contentsOf: Fixtures.url("legacy/inventory-json-blob.json"))
      try bytes.write(to: legacy)
      let device = try openDevice(root.appendingPathComponent("home"))
      let added = try #require(try device.importLegacyBlob(at: legacy.path))
      #expect(added.map(\.name) == ["Koleston 7/1", "AA batteries"])
      #expect(Set(added.map(\.id)).count == 2)
      #expect(device.items().map(\.quantity).sorted() == [5, 12])
      #expect(try device.importLegacyBlob(at: legacy.path) == nil, "never twice")
      #expect(device.items().count == 2)
      #expect(try Data(contentsOf: legacy) == bytes)
    }
  }

  @Test func aMalformedBlobImportsNothingAndSaysWhy() throws {
    try withTemporaryFolder { root in
      let device = try openDevice(root.appendingPathComponent("home"))
      let bad = Fixtures.url("legacy/inventory-json-blob-bad.json").path
      let error = #expect(throws: StashError.self) { try device.importLegacyBlob(at: bad) }
      #expect(error?.message.contains("entry 2 has no 'name'") == true)
      #expect(device.items().isEmpty)
    }
  }
}
