import LocalStore
public import StashModel

extension DeviceFolder {
  /// The live locations, by name then id.
  public func locations() -> [Location] {
    guard let content else { return [] }
    return content.records(of: "location").compactMap { try? Location(record: $0) }.sorted {
      ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id)
    }
  }

  /// The location `text` names (an id, a unique id prefix, or an exact name).
  ///
  /// - Throws: ``StashError`` when nothing or several locations match.
  public func location(_ text: String) throws(StashError) -> Location {
    guard let content else {
      throw .refused("No location named '\(text)'; there are no locations yet")
    }
    let row = try find(text, model: "location", in: content)
    do { return try Location(record: row.record) } catch { throw StashError(error) }
  }

  /// Adds a new location (validated). Its name must not already name a location, so that
  /// names stay usable to pick one.
  ///
  /// - Returns: The saved location.
  /// - Throws: ``StashError`` for an invalid location, a name in use, or a failed save.
  @discardableResult
  public func addLocation(_ location: Location) throws(StashError) -> Location {
    do { try location.validate() } catch { throw StashError(error) }
    return try save("the new location '\(location.name)'") {
      content, transaction throws(StashError) in
      try Self.refuseNameInUse(location, in: content)
      try StashError.model(transaction.insert(location.record))
      return location
    }
  }

  /// Changes a location: `change` edits the freshest copy; `updatedAt` becomes now.
  ///
  /// - Returns: The location after the change.
  /// - Throws: What `change` throws, ``StashError`` for an invalid result, a name in use by
  ///   another location, or a failed save.
  @discardableResult
  public func editLocation(
    _ text: String, _ change: (inout Location) throws(StashError) -> Void
  ) throws(StashError) -> Location {
    let now = clock()
    return try save("the edit of location '\(text)'") { content, transaction throws(StashError) in
      let row = try self.find(text, model: "location", in: content)
      var location = try StashError.model(Location(record: row.record))
      try change(&location)
      location.updatedAt = now
      try StashError.model(location.validate())
      try Self.refuseNameInUse(location, in: content)
      try StashError.model(transaction.replace(row.row, with: location.record))
      return location
    }
  }

  /// Deletes a location explicitly. Items and reminders that name it keep its id, which then
  /// dangles (shown as missing), exactly as when a deletion arrives from another device.
  ///
  /// - Returns: The deleted location.
  @discardableResult
  public func deleteLocation(_ text: String) throws(StashError) -> Location {
    try delete(text, model: "location") { (record) throws(ModelError) in
      try Location(record: record)
    }
  }

  private static func refuseNameInUse(_ location: Location, in content: LocalContent)
    throws(StashError)
  {
    let name = location.name.lowercased()
    let taken = content.records(of: "location").first { record in
      guard record.id != location.id, case .string(let other)? = record[field: "name"] else {
        return false
      }
      return other.lowercased() == name
    }
    if let taken {
      throw .refused(
        "A location named '\(location.name)' already exists (\(taken.id.rawValue.prefix(8))); "
          + "choose another name")
    }
  }
}
