public import StashModel

/// DESIGN's merge rule for counters, as a pure function of the sides.
///
/// Where the table would record a conflict between live records, the sides merge instead when
/// every side is a live record of one schema with counters, all sides hold the same value in
/// every other field that is hashed (the change time aside), and each counter is in the same
/// epoch on every side. The merged record keeps those values, takes each device's larger tally
/// in every counter, and the latest change time, so every device that merges the same sides
/// computes the same snapshot and hash. There is no field-by-field merge of anything else.
public enum CounterMerge {
  /// A way of merging sides: ``merge(_:)``, or a deliberately weakened one in tests.
  public typealias Strategy = @Sendable ([Record]) -> Outcome

  /// What merging some sides gives.
  public enum Outcome: Hashable, Sendable {
    /// The sides merge into this record.
    case merged(Record)
    /// They would merge, but a counter would go below zero (or break the model's rules): the
    /// person decides.
    case belowZero
    /// They differ in something other than their counters' moves: a conflict, as the table
    /// says.
    case notMergeable
  }

  /// Merges `sides` (two or more live records of one key).
  @Sendable
  public static func merge(_ sides: [Record]) -> Outcome {
    guard sides.count >= 2, let first = sides.first else { return .notMergeable }
    let schema = first.schema
    let counters = schema.counterIndices
    guard !counters.isEmpty, sides.allSatisfy({ $0.schema == schema && $0.id == first.id })
    else { return .notMergeable }
    var values = first.values
    for (index, field) in schema.fields.enumerated() where !field.isDeviceLocal {
      let column = sides.map { $0.values[index] }
      if index == schema.changeTimeIndex {
        values[index] = column.max(by: isEarlier) ?? values[index]
      } else if counters.contains(index) {
        guard let merged = mergedCounter(column) else { return .notMergeable }
        values[index] = merged
      } else if column.contains(where: { $0 != column[0] }) {
        return .notMergeable
      }
    }
    for index in schema.fields.indices where schema.fields[index].isDeviceLocal {
      values[index] = .none  // whoever receives the merge keeps its own
    }
    guard let record = try? Record(schema: schema, id: first.id, values: values) else {
      return .notMergeable
    }
    for index in counters {
      if case .counter(let counter) = record.values[index], (counter.value ?? 0) < 0 {
        return .belowZero
      }
    }
    do {
      try schema.validate(record)
    } catch {
      return .belowZero
    }
    return .merged(record)
  }

  /// One counter field across the sides: merged when all are counters of one epoch (or all
  /// absent, for an optional counter).
  private static func mergedCounter(_ column: [FieldValue]) -> FieldValue? {
    if column.allSatisfy({ $0 == .none }) { return FieldValue.none }
    var counters = [Counter]()
    for value in column {
      guard case .counter(let counter) = value else { return nil }
      counters.append(counter)
    }
    guard let first = counters.first, counters.allSatisfy({ $0.isSameEpoch(as: first) }) else {
      return nil
    }
    return .counter(first.merged(with: Array(counters.dropFirst())))
  }

  private static func isEarlier(_ a: FieldValue, _ b: FieldValue) -> Bool {
    guard case .date(let x) = a, case .date(let y) = b else { return false }
    return x < y
  }
}
