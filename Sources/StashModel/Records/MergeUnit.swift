/// What a three-way merge of concurrent versions compares and takes as one: a field, or a
/// group of fields that only make sense together.
///
/// A side **changed** a unit when one of its fields differs from the merge base (or differed
/// on its way there); sides that changed a unit to the same values agree, sides that changed
/// it to different values are in conflict on it (DESIGN, "Merging concurrent versions").
public struct MergeUnit: Hashable, Sendable, CustomStringConvertible {
  /// The unit's name: its field's, or its fields' joined by `+` for a group.
  public let name: String
  /// The positions of its fields in the schema, ascending.
  public let fields: [Int]
  /// Whether it is a counter, which merges by tallies within an epoch instead.
  public let isCounter: Bool

  public var description: String { name }

  /// The units of a schema: every synced field except the change time, a group's fields as
  /// one unit placed where its first field is.
  ///
  /// - Throws: ``ModelError`` when a group names an unknown, device-local or counter field,
  ///   the change time, or a field already grouped.
  static func units(
    of model: String, fields: [FieldSpec], groups: [[String]], index: [String: Int],
    changeTime: Int?
  ) throws(ModelError) -> [MergeUnit] {
    var groupOf = [Int: Int]()
    for (number, group) in groups.enumerated() {
      guard group.count >= 2 else {
        throw ModelError("A merge group of '\(model)' needs at least two fields")
      }
      for name in group {
        guard let position = index[name] else {
          throw ModelError("Merge group of '\(model)' names unknown field '\(name)'")
        }
        let field = fields[position]
        guard !field.isDeviceLocal, !field.type.isCounter, position != changeTime else {
          throw ModelError(
            "Field '\(name)' of '\(model)' cannot be in a merge group: only synced fields "
              + "that are neither counters nor the change time can")
        }
        guard groupOf.updateValue(number, forKey: position) == nil else {
          throw ModelError("Field '\(name)' of '\(model)' is in two merge groups")
        }
      }
    }
    var units = [MergeUnit]()
    var placed = Set<Int>()
    for (position, field) in fields.enumerated()
    where !field.isDeviceLocal && position != changeTime {
      guard let group = groupOf[position] else {
        units.append(
          MergeUnit(name: field.name, fields: [position], isCounter: field.type.isCounter))
        continue
      }
      guard placed.insert(group).inserted else { continue }
      let members = groups[group].compactMap { index[$0] }.sorted()
      units.append(
        MergeUnit(
          name: members.map { fields[$0].name }.joined(separator: "+"), fields: members,
          isCounter: false))
    }
    return units
  }
}
