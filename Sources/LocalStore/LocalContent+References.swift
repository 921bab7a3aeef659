import StashBase
public import StashModel

/// A reference from one record to another that has no live row here.
public struct DanglingReference: Hashable, Sendable, CustomStringConvertible {
  /// The record holding the reference.
  public let from: RecordKey
  /// The referencing field.
  public let field: String
  /// The record it names.
  public let to: RecordKey
  /// Whether the target was deleted here (a tombstone), rather than not arrived yet.
  public let targetDeleted: Bool

  public var description: String {
    "\(from) field '\(field)' names \(to), which is "
      + (targetDeleted ? "deleted" : "not here (maybe not synced yet)")
  }
}

extension LocalContent {
  /// Every reference whose target has no live row here, in row order.
  ///
  /// Dangling references are allowed: the target may have been deleted here, or may not have
  /// arrived from another device yet. They are reported, never followed blindly.
  public func danglingReferences() -> [DanglingReference] {
    var found = [DanglingReference]()
    for stored in rows.values {  // in row order
      let record = stored.record
      for (field, value) in zip(record.schema.fields, record.values) {
        guard case .reference(let target) = value, let model = field.type.referencedModel else {
          continue
        }
        let key = RecordKey(model: model, id: target)
        if rowsByKey[key] == nil {
          found.append(
            DanglingReference(
              from: record.key, field: field.name, to: key, targetDeleted: tombstones[key] != nil))
        }
      }
    }
    return found
  }
}

extension FieldType {
  /// The model a reference field points at (through an optional, too).
  public var referencedModel: String? {
    switch self {
    case .reference(let model): model
    case .optional(let wrapped): wrapped.referencedModel
    default: nil
    }
  }
}
