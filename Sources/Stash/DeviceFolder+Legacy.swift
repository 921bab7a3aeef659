import StashBase
package import StashModel

extension DeviceFolder {
  /// The fixed name of seed 003's legacy JSON blob in a device folder (the app kept it in its
  /// defaults; exported, it sits beside the stores). ``SyncFolder/Options/legacyFile`` names
  /// another file.
  package static let legacyFileName = "legacy-items.json"
  /// The one-time step of the legacy import, kept in the device's settings.
  package static let legacyStep = "legacy-json-blob-1"

  /// Where this folder's legacy blob is looked for (see ``legacyFileName``).
  package var legacyFilePath: String { folder.legacyFilePath(defaultName: Self.legacyFileName) }

  /// Whether the legacy import still waits: the step is not done and a file is at
  /// ``legacyFilePath`` (one status call; the file is not read).
  package var legacyDataWaits: Bool {
    folder.legacyStepWaits(Self.legacyStep, path: legacyFilePath)
  }

  /// Imports the legacy blob at ``legacyFilePath`` once, if there is one: what a tool calls
  /// right after opening the folder (the `stash` CLI does for every command that opens it).
  ///
  /// - Returns: What was imported, or `nil` when the step was done before or there is no file.
  /// - Throws: ``StashError`` (refused) saying why the file cannot be imported; nothing was
  ///   imported, the file is left as it is, and the next call tries again.
  public func importLegacyData() throws(StashError) -> LegacyImport? {
    guard !settings.stepsDone.contains(Self.legacyStep) else { return nil }
    let path = legacyFilePath
    guard let bytes = try folder.readLegacyFile(at: path) else { return nil }
    guard let items = try importLegacyBlob(bytes, path: path) else { return nil }
    return LegacyImport(path: path, count: items.count, noun: "items")
  }

  /// Imports seed 003's legacy JSON blob once: an array of items without ids, each an object
  /// with a `name` (text) and optional `quantity` (a whole number), `unit`, `brand`, `notes`
  /// and `barcode` (texts; `null` is absent).
  ///
  /// Every entry is checked first, strictly: a quantity of `1.5` or `true`, a key this shape
  /// does not have or a value that fails the item's checks refuses the whole file, naming the
  /// entry. Each item gets a new id. The import is marked done in the same transaction
  /// (``legacyStep``) and never runs twice; the file is read through the folder's file system
  /// (a regular file of at most ``SyncFolder/legacyFileLimit`` bytes) and left in place.
  ///
  /// - Parameter path: The legacy file.
  /// - Returns: The items added, or `nil` when the import had run before.
  /// - Throws: ``StashError`` (refused) saying why the file cannot be imported.
  @discardableResult
  package func importLegacyBlob(at path: String) throws(StashError) -> [Item]? {
    if settings.stepsDone.contains(Self.legacyStep) { return nil }
    guard let bytes = try folder.readLegacyFile(at: path) else {
      throw SyncFolder.legacyRefusal(path, "there is no such file")
    }
    return try importLegacyBlob(bytes, path: path)
  }

  /// Checks the legacy blob waiting at ``legacyFilePath`` without importing it (what `doctor`
  /// reports): `nil` when nothing waits or it would import.
  ///
  /// - Returns: Why it cannot be imported.
  package func legacyDataProblem() -> StashError? {
    guard legacyDataWaits else { return nil }
    do {
      guard let bytes = try folder.readLegacyFile(at: legacyFilePath) else { return nil }
      _ = try legacyItems(bytes, path: legacyFilePath)
      return nil
    } catch {
      return error
    }
  }

  private func importLegacyBlob(_ bytes: [UInt8], path: String) throws(StashError) -> [Item]? {
    let items = try legacyItems(bytes, path: path)
    guard try folder.saveOnce(items.map(\.record), step: Self.legacyStep) else { return nil }
    return items
  }

  private func legacyItems(_ bytes: [UInt8], path: String) throws(StashError) -> [Item] {
    guard case .array(let entries) = try SyncFolder.parseLegacyJSON(bytes, path: path) else {
      throw SyncFolder.legacyRefusal(path, "it is not a JSON array of items")
    }
    let now = clock()
    var items = [Item]()
    for (index, entry) in entries.enumerated() {
      let item = try Self.legacyItem(entry, number: index + 1, path: path, at: now) {
        newIdentifier()
      }
      items.append(item)
    }
    return items
  }

  private static let legacyKeys: Set = ["name", "quantity", "unit", "brand", "notes", "barcode"]

  private static func legacyItem(
    _ entry: JSONValue, number: Int, path: String, at now: Timestamp,
    newID: () -> RecordID
  ) throws(StashError) -> Item {
    func refuse(_ reason: String) -> StashError {
      SyncFolder.legacyRefusal(path, "entry \(number) \(reason)")
    }
    guard case .object(let object) = entry else { throw refuse("is not an object") }
    if let unknown = object.keys.first(where: { !legacyKeys.contains($0) }) {
      throw refuse("has '\(unknown)', which a legacy item does not have")
    }
    func text(_ key: String) throws(StashError) -> String? {
      switch object[key] {
      case nil, .null?: return nil
      case .string(let value)?: return value
      default: throw refuse("has a '\(key)' that is not a text")
      }
    }
    guard let name = try text("name") else { throw refuse("has no 'name'") }
    let quantity: Int64
    switch object["quantity"] {
    case nil, .null?: quantity = 0
    case .integer(let value)?: quantity = value
    default: throw refuse("has a 'quantity' that is not a whole number")
    }
    let item = Item(
      id: newID(), name: name, brand: try text("brand"), quantity: quantity,
      unit: try text("unit") ?? "", notes: try text("notes") ?? "", barcode: try text("barcode"),
      createdAt: now)
    do { try item.validate() } catch { throw refuse("(\(name)): \(error.message)") }
    return item
  }
}
