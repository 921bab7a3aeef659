extension FieldValue {
  /// `.none` for `nil`, else the value wrapped by `make`.
  static func optional<T>(_ value: T?, _ make: (T) -> FieldValue) -> FieldValue {
    value.map(make) ?? .none
  }
}

/// Reads a validated record's values in schema order, for the typed inventory views.
///
/// The record has already been checked against its schema, so a type mismatch here is a
/// programming error in the typed view, not bad input.
struct FieldReader {
  private let values: [FieldValue]
  private var position = 0

  init(_ record: Record) { self.values = record.values }

  private mutating func next() -> FieldValue {
    defer { position += 1 }
    return values[position]
  }

  mutating func string() -> String {
    guard case .string(let text) = next() else { preconditionFailure("expected a string") }
    return text
  }

  mutating func optionalString() -> String? {
    switch next() {
    case .string(let text): text
    case .none: nil
    default: preconditionFailure("expected an optional string")
    }
  }

  mutating func integer() -> Int64 {
    guard case .integer(let number) = next() else { preconditionFailure("expected an integer") }
    return number
  }

  mutating func counter() -> Counter {
    guard case .counter(let counter) = next() else { preconditionFailure("expected a counter") }
    return counter
  }

  mutating func optionalInteger() -> Int64? {
    switch next() {
    case .integer(let number): number
    case .none: nil
    default: preconditionFailure("expected an optional integer")
    }
  }

  mutating func optionalDouble() -> Double? {
    switch next() {
    case .double(let number): number
    case .none: nil
    default: preconditionFailure("expected an optional double")
    }
  }

  mutating func bool() -> Bool {
    guard case .bool(let flag) = next() else { preconditionFailure("expected a bool") }
    return flag
  }

  mutating func date() -> Timestamp {
    guard case .date(let time) = next() else { preconditionFailure("expected a date") }
    return time
  }

  mutating func optionalBlob() -> BlobRef? {
    switch next() {
    case .blob(let blob): blob
    case .none: nil
    default: preconditionFailure("expected an optional blob")
    }
  }

  mutating func reference() -> RecordID {
    guard case .reference(let id) = next() else { preconditionFailure("expected a reference") }
    return id
  }

  mutating func optionalReference() -> RecordID? {
    switch next() {
    case .reference(let id): id
    case .none: nil
    default: preconditionFailure("expected an optional reference")
    }
  }
}
