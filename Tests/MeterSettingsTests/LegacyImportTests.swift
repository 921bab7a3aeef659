import Foundation
import MeterSettings
import Stash
import StashModel
import StashTestSupport
import Testing

/// Seed 001's legacy key-value store (names and units keyed by MAC) is imported once.
@Suite struct LegacyImportTests {
  @Test func theKeyValueStoreImportsOnceAndIsLeftInPlace() throws {
    try withTemporaryFolder { root in
      let legacy = root.appendingPathComponent("legacy.json")
      let bytes = try Data(contentsOf: Fixtures.url("legacy/meter-key-value-store.json"))
      try bytes.write(to: legacy)
      let meters = try TwoMeterDevices(root).phone
      #expect(try meters.importLegacyKeyValueStore(at: legacy.path) == 2)
      let kitchen = try #require(try meters.meter(mac: "aa:bb:cc:dd:ee:ff"))
      #expect(kitchen.name == "Kitchen Meter" && kitchen.temperatureUnit == .fahrenheit)
      let desk = try #require(try meters.meter(mac: "11:22:33:44:55:66"))
      #expect(desk.name == "Desk" && desk.temperatureUnit == .celsius, "two spellings, one meter")
      try meters.rename(mac: "aa:bb:cc:dd:ee:ff", to: "Renamed")
      #expect(try meters.importLegacyKeyValueStore(at: legacy.path) == nil, "never twice")
      #expect(try meters.meter(mac: "aa:bb:cc:dd:ee:ff")?.name == "Renamed")
      #expect(try Data(contentsOf: legacy) == bytes, "the legacy file stays")
    }
  }

  @Test func aMalformedLegacyFileImportsNothingAndSaysWhy() throws {
    try withTemporaryFolder { root in
      let meters = try TwoMeterDevices(root).phone
      let bad = Fixtures.url("legacy/meter-key-value-store-bad-unit.json").path
      let error = #expect(throws: StashError.self) {
        try meters.importLegacyKeyValueStore(at: bad)
      }
      #expect(error?.message.contains("'kelvin'") == true)
      #expect(meters.meters.isEmpty)
      let garbage = root.appendingPathComponent("garbage.json")
      try Data("[1, 2".utf8).write(to: garbage)
      #expect(throws: StashError.self) { try meters.importLegacyKeyValueStore(at: garbage.path) }
      #expect(meters.meters.isEmpty)
    }
  }
}
