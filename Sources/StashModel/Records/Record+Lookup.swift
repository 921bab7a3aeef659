extension Record {
  /// The texts a person names this record by: the values of its schema's lookup fields
  /// (``Schema/lookupIndices``), in declared order, the absent ones left out.
  ///
  /// Finding a record by name, its label in messages, the names in a sync's status and
  /// verification, and the local index's name table all read these, so a schema decides how
  /// its records are named in one place.
  public var lookupNames: [String] {
    schema.lookupIndices.compactMap { position in
      guard case .string(let text) = values[position] else { return nil }
      return text
    }
  }

  /// The first of ``lookupNames`` (an item's name, a reminder's message), if any.
  public var lookupName: String? {
    for position in schema.lookupIndices {
      if case .string(let text) = values[position] { return text }
    }
    return nil
  }
}
