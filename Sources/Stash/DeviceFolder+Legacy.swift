import Foundation
public import StashModel

extension DeviceFolder {
  /// Imports seed 003's legacy JSON blob once: an array of items without ids, each an object
  /// with `name` and optional `quantity`, `unit`, `brand`, `notes` and `barcode`.
  ///
  /// Every entry is checked first (one bad entry and nothing is imported, the message names
  /// its position and why). Each item gets a new id. The import is marked done in the same
  /// transaction (`legacy-json-blob-1`) and never runs twice; the file is left in place.
  ///
  /// - Parameter path: The legacy file.
  /// - Returns: The items added, or `nil` when the import had run before.
  /// - Throws: ``StashError`` (refused) saying why the file cannot be imported.
  @discardableResult
  public func importLegacyBlob(at path: String) throws(StashError) -> [Item]? {
    let step = "legacy-json-blob-1"
    if settings.stepsDone.contains(step) { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .refused("Cannot read the legacy file '\(path)'; nothing was imported")
    }
    guard let entries = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
      throw .refused(
        "The legacy file '\(path)' is not a JSON array of objects; nothing was imported")
    }
    let now = clock()
    var items = [Item]()
    for (index, entry) in entries.enumerated() {
      guard let name = entry["name"] as? String else {
        throw .refused(
          "Entry \(index + 1) of the legacy file '\(path)' has no 'name'; nothing was imported")
      }
      let quantity = (entry["quantity"] as? NSNumber)?.int64Value ?? 0
      let item = Item(
        id: newIdentifier(), name: name, brand: entry["brand"] as? String, quantity: quantity,
        unit: entry["unit"] as? String ?? "", notes: entry["notes"] as? String ?? "",
        barcode: entry["barcode"] as? String, createdAt: now)
      do { try item.validate() } catch {
        throw .refused(
          "Entry \(index + 1) of the legacy file '\(path)': \(error.message); nothing was "
            + "imported")
      }
      items.append(item)
    }
    guard try folder.saveOnce(items.map(\.record), step: step) else { return nil }
    return items
  }
}
