/// A Swift value a field holds: the types of ``FieldValue``, and optionals of them.
///
/// It lets a ``RecordConvertible`` type read and write its fields by name without a switch:
/// `name = try record.value("name")`, `FieldValue(name)`.
public protocol FieldConvertible: Sendable {
  /// The value a field holds for this Swift value.
  var fieldValue: FieldValue { get }
  /// The Swift value a field's value stands for, or `nil` when it is of another type.
  static func from(_ value: FieldValue) -> Self?
}

extension String: FieldConvertible {
  /// `.string`.
  public var fieldValue: FieldValue { .string(self) }
  /// The text of a `.string`.
  public static func from(_ value: FieldValue) -> String? {
    if case .string(let text) = value { return text }
    return nil
  }
}

extension Int64: FieldConvertible {
  /// `.integer`.
  public var fieldValue: FieldValue { .integer(self) }
  /// The number of an `.integer`.
  public static func from(_ value: FieldValue) -> Int64? {
    if case .integer(let number) = value { return number }
    return nil
  }
}

extension Double: FieldConvertible {
  /// `.double`.
  public var fieldValue: FieldValue { .double(self) }
  /// The number of a `.double`.
  public static func from(_ value: FieldValue) -> Double? {
    if case .double(let number) = value { return number }
    return nil
  }
}

extension Bool: FieldConvertible {
  /// `.bool`.
  public var fieldValue: FieldValue { .bool(self) }
  /// The truth of a `.bool`.
  public static func from(_ value: FieldValue) -> Bool? {
    if case .bool(let truth) = value { return truth }
    return nil
  }
}

extension Timestamp: FieldConvertible {
  /// `.date`.
  public var fieldValue: FieldValue { .date(self) }
  /// The time of a `.date`.
  public static func from(_ value: FieldValue) -> Timestamp? {
    if case .date(let time) = value { return time }
    return nil
  }
}

extension RecordID: FieldConvertible {
  /// `.reference`.
  public var fieldValue: FieldValue { .reference(self) }
  /// The id of a `.reference`.
  public static func from(_ value: FieldValue) -> RecordID? {
    if case .reference(let id) = value { return id }
    return nil
  }
}

extension BlobRef: FieldConvertible {
  /// `.blob`.
  public var fieldValue: FieldValue { .blob(self) }
  /// The reference of a `.blob`.
  public static func from(_ value: FieldValue) -> BlobRef? {
    if case .blob(let blob) = value { return blob }
    return nil
  }
}

extension Counter: FieldConvertible {
  /// `.counter`.
  public var fieldValue: FieldValue { .counter(self) }
  /// The counter of a `.counter`.
  public static func from(_ value: FieldValue) -> Counter? {
    if case .counter(let counter) = value { return counter }
    return nil
  }
}

extension Optional: FieldConvertible where Wrapped: FieldConvertible {
  /// `.none` for `nil`, else the wrapped value's.
  public var fieldValue: FieldValue { self?.fieldValue ?? .none }
  /// `nil` (as a value) for `.none`, else the wrapped type's reading.
  public static func from(_ value: FieldValue) -> Wrapped?? {
    if case .none = value { return .some(nil) }
    return Wrapped.from(value).map { .some($0) }
  }
}

extension FieldValue {
  /// The field value of a Swift value (`FieldValue("Kitchen")` is `.string("Kitchen")`).
  public init(_ value: some FieldConvertible) { self = value.fieldValue }
}

extension Record {
  /// The value of field `name` as a Swift value.
  ///
  /// - Throws: ``ModelError`` naming the field when the schema has no such field or it holds
  ///   a value of another type.
  public func value<T: FieldConvertible>(
    _ name: String, as type: T.Type = T.self
  ) throws(ModelError) -> T {
    guard let value = self[field: name] else {
      throw ModelError("Model '\(model)' has no field '\(name)'")
    }
    guard let typed = T.from(value) else {
      throw ModelError("Field '\(name)' of '\(model)' holds \(value), not a \(T.self)")
    }
    return typed
  }
}

extension Record {
  /// Calls `body` with each photo the record refers to, in field order, reading only the
  /// fields that may hold one (``Schema/blobIndices``).
  package func forEachBlob(_ body: (BlobRef) throws -> Void) rethrows {
    for index in schema.blobIndices {
      if case .blob(let blob) = values[index] { try body(blob) }
    }
  }
}
