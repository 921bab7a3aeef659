public import Stash
import StashBase
import StashModel

extension MeterFolder {
  /// The fixed name of seed 001's legacy key-value store in a meter folder (the app kept it in
  /// `NSUbiquitousKeyValueStore`; exported, it sits beside the stores).
  /// `SyncFolder.Options.legacyFile` names another file.
  public static let legacyFileName = "legacy-key-value-store.json"
  /// The one-time step of the legacy import, kept in the device's settings.
  public static let legacyStep = "legacy-key-value-1"

  /// Where this folder's legacy key-value store is looked for (see ``legacyFileName``).
  public var legacyFilePath: String { folder.legacyFilePath(defaultName: Self.legacyFileName) }

  /// Imports the legacy key-value store at ``legacyFilePath`` once, if there is one: what a
  /// tool calls right after opening the folder (`stash-meters` does for every command).
  ///
  /// - Returns: What was imported, or `nil` when the step was done before or there is no file.
  /// - Throws: ``StashError`` (refused) saying why the file cannot be imported; nothing was
  ///   imported, the file is left as it is, and the next call tries again.
  public func importLegacyData() throws(StashError) -> LegacyImport? {
    guard !folder.settings.stepsDone.contains(Self.legacyStep) else { return nil }
    let path = legacyFilePath
    guard let bytes = try folder.readLegacyFile(at: path) else { return nil }
    guard let count = try importLegacyKeyValueStore(bytes, path: path) else { return nil }
    return LegacyImport(path: path, count: count, noun: "meters")
  }

  /// Imports seed 001's legacy key-value store once: a JSON object with `MeterNames` and
  /// `TC66TemperatureUnits`, each a map from MAC address to a name or a unit.
  ///
  /// Every entry is checked first; one bad entry and nothing is imported. Each MAC becomes
  /// a meter (its derived id), its name and unit carried over onto any settings already here.
  /// The import is marked done in the same transaction and never runs twice; the legacy file
  /// is read through the folder's file system and left in place.
  ///
  /// - Parameter path: The legacy file.
  /// - Returns: How many meters were written, or `nil` when the import had run before.
  /// - Throws: ``StashError`` (refused) saying why a file cannot be imported.
  @discardableResult
  public func importLegacyKeyValueStore(at path: String) throws(StashError) -> Int? {
    if folder.settings.stepsDone.contains(Self.legacyStep) { return nil }
    guard let bytes = try folder.readLegacyFile(at: path) else {
      throw SyncFolder.legacyRefusal(path, "there is no such file")
    }
    return try importLegacyKeyValueStore(bytes, path: path)
  }

  private func importLegacyKeyValueStore(_ bytes: [UInt8], path: String) throws(StashError)
    -> Int?
  {
    guard case .object(let object) = try SyncFolder.parseLegacyJSON(bytes, path: path) else {
      throw SyncFolder.legacyRefusal(path, "it is not a JSON object")
    }
    if let unknown = object.keys.first(where: { $0 != "MeterNames" && $0 != "TC66TemperatureUnits" }
    ) {
      throw SyncFolder.legacyRefusal(path, "it has '\(unknown)', which this import does not know")
    }
    func map(_ key: String) throws(StashError) -> [String: String] {
      guard let value = object[key], value != .null else { return [:] }
      guard case .object(let entries) = value else {
        throw SyncFolder.legacyRefusal(path, "'\(key)' is not a map of texts")
      }
      var map = [String: String]()
      for (mac, text) in entries {
        guard case .string(let text) = text else {
          throw SyncFolder.legacyRefusal(path, "'\(key)' of '\(mac)' is not a text")
        }
        map[mac] = text
      }
      return map
    }
    let names = try map("MeterNames")
    let units = try map("TC66TemperatureUnits")
    var meters = [String: Meter]()
    let now = folder.clock()
    for mac in Set(names.keys).union(units.keys).sorted() {
      let normal: String
      do { normal = try MACAddress.normalized(mac) } catch {
        throw SyncFolder.legacyRefusal(path, error.message)
      }
      var meter =
        meters[normal] ?? folder.fetch(Meter.self, id: Meter.id(forMAC: normal))
        ?? Meter(macAddress: normal, at: now)
      meter.updatedAt = now
      if let name = names[mac] { meter.name = name }
      if let unit = units[mac] {
        guard let known = TemperatureUnit(rawValue: unit) else {
          throw SyncFolder.legacyRefusal(
            path, "the temperature unit '\(unit)' of '\(mac)' is not 'celsius' or 'fahrenheit'")
        }
        meter.temperatureUnit = known
      }
      meters[normal] = meter
    }
    let records = meters.keys.sorted().map { meters[$0]!.record }
    guard try folder.saveOnce(records, step: Self.legacyStep) else { return nil }
    return records.count
  }
}
