import Foundation
public import Stash
import StashModel

extension MeterFolder {
  /// Imports seed 001's legacy key-value store once: a JSON object with `MeterNames` and
  /// `TC66TemperatureUnits`, each a map from MAC address to a name or a unit.
  ///
  /// Every entry is checked first; one bad entry and nothing is imported. Each MAC becomes
  /// a meter (its derived id), its name and unit carried over onto any settings already here.
  /// The import is marked done in the same transaction and never runs twice; the legacy file
  /// is left in place.
  ///
  /// - Parameter path: The legacy file.
  /// - Returns: How many meters were written, or `nil` when the import had run before.
  /// - Throws: ``StashError`` (refused) saying why a file cannot be imported.
  @discardableResult
  public func importLegacyKeyValueStore(at path: String) throws(StashError) -> Int? {
    let step = "legacy-key-value-1"
    if folder.settings.stepsDone.contains(step) { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .refused("Cannot read the legacy file '\(path)'; nothing was imported")
    }
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw .refused("The legacy file '\(path)' is not a JSON object; nothing was imported")
    }
    func map(_ key: String) throws(StashError) -> [String: String] {
      guard let value = object[key] else { return [:] }
      guard let map = value as? [String: String] else {
        throw .refused(
          "'\(key)' in the legacy file '\(path)' is not a map of texts; nothing was imported")
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
        throw .refused("\(error.message) (in the legacy file '\(path)'); nothing was imported")
      }
      var meter =
        meters[normal] ?? folder.fetch(Meter.self, id: Meter.id(forMAC: normal))
        ?? Meter(macAddress: normal, at: now)
      meter.updatedAt = now
      if let name = names[mac] { meter.name = name }
      if let unit = units[mac] {
        guard let known = TemperatureUnit(rawValue: unit) else {
          throw .refused(
            "The temperature unit '\(unit)' of '\(mac)' in the legacy file '\(path)' is not "
              + "'celsius' or 'fahrenheit'; nothing was imported")
        }
        meter.temperatureUnit = known
      }
      meters[normal] = meter
    }
    let records = meters.keys.sorted().map { meters[$0]!.record }
    guard try folder.saveOnce(records, step: step) else { return nil }
    return records.count
  }
}
