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

  @Test func theStoreAtItsFixedNameImportsAtFirstOpenOnceAndANamedFileToo() throws {
    try withTemporaryFolder { root in
      let bytes = try Data(contentsOf: Fixtures.url("legacy/meter-key-value-store.json"))
      let home = root.appendingPathComponent("meters")
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
      let fixed = home.appendingPathComponent(MeterFolder.legacyFileName)
      try bytes.write(to: fixed)
      let meters = try MeterFolder(at: home.path)
      let imported = try #require(try meters.importLegacyData())
      #expect(imported.count == 2 && imported.path == fixed.path)
      #expect(imported.description == "Imported 2 meters from the legacy file '\(fixed.path)'")
      #expect(try MeterFolder(at: home.path).importLegacyData() == nil, "never twice")
      #expect(try Data(contentsOf: fixed) == bytes)
      var options = SyncFolder.Options()
      options.legacyFile = root.appendingPathComponent("exported.json").path
      try bytes.write(to: URL(fileURLWithPath: options.legacyFile!))
      let other = try MeterFolder(at: root.appendingPathComponent("other").path, options: options)
      #expect(try other.importLegacyData()?.count == 2)
      #expect(
        try MeterFolder(at: root.appendingPathComponent("none").path).importLegacyData() == nil)
    }
  }

  @Test(arguments: [
    (
      #"{"MeterNames": {"AA:BB:CC:DD:EE:FF": 5}}"#,
      "'MeterNames' of 'AA:BB:CC:DD:EE:FF' is not a text"
    ),
    (#"{"MeterNames": ["Kitchen"]}"#, "'MeterNames' is not a map of texts"),
    (#"{"MeterNames": {}, "Colours": {}}"#, "it has 'Colours'"),
    (#"{"MeterNames": {"not a mac": "Desk"}}"#, "'not a mac'"),
  ])
  func aValueOfTheWrongTypeIsRefusedNamingTheEntry(_ text: String, _ reason: String) throws {
    try withTemporaryFolder { root in
      let home = root.appendingPathComponent("meters")
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: home.appendingPathComponent(MeterFolder.legacyFileName))
      let meters = try MeterFolder(at: home.path)
      let error = #expect(throws: StashError.self) { try meters.importLegacyData() }
      #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
      #expect(error?.message.contains("nothing was imported") == true)
      #expect(meters.meters.isEmpty)
    }
  }
}
