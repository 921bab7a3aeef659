public import StashModel

/// What two sides of a merge could not agree on.
public struct Disagreement: Hashable, Sendable {
  /// The merge units in dispute (positions in the schema's ``Schema/mergeUnits``).
  public var units: Set<Int> = []
  /// Whether a deletion meets a side that changed the record.
  public var deletion = false
  /// The counters that would go below zero (they are among ``units`` too).
  public var belowZero: Set<Int> = []

  /// No disagreement.
  public init() {}

  /// Whether the sides agree.
  public var isEmpty: Bool { units.isEmpty && !deletion }

  mutating func formUnion(_ other: Disagreement) {
    units.formUnion(other.units)
    deletion = deletion || other.deletion
    belowZero.formUnion(other.belowZero)
  }

  /// The fields in dispute, in schema order (a group's fields together).
  public func fields(of schema: Schema) -> [String] {
    units.flatMap { schema.mergeUnits[$0].fields }.sorted().map { schema.fields[$0].name }
  }
}

/// One side of a pairwise merge: a snapshot, and the units some version on its way from the
/// base had another value of (rule 5).
struct MergeSide {
  let snapshot: Snapshot
  var touched: Set<Int> = []
}

/// DESIGN's three-way merge of two sides, unit by unit, against a base (rule 5).
///
/// A side **changed** a unit when its value differs from the base's, or it touched the unit on
/// its way (a value set back to the base's after others saw another is a change). No side
/// changed it: the base's value; changes to one value: that value; to several: a conflict on
/// the unit. Without a base (two-way), equal values merge and different ones conflict. A
/// counter merges by tallies within one epoch; a recount against moves, two recounts, or a
/// merge below zero is a conflict on it. The change time takes the latest. A deletion wins
/// over live sides only when none of them changed anything since the base.
enum FieldMerge {
  /// What a merge of two sides gives.
  struct Outcome {
    /// The merged snapshot, or `nil` when the sides disagree (and no choice was given).
    var snapshot: Snapshot?
    /// What they disagree on (decided by ``Choice`` when one was given).
    var disagreement = Disagreement()
  }

  /// A person's choice, for a resolution: the side whose values the units in dispute take,
  /// and the units already in dispute in an earlier step (they keep the chosen value).
  struct Choice {
    let pick: Record
    var decided = Disagreement()
  }

  static func merge(
    _ sides: [MergeSide], base: Snapshot?, rules: MergeRules, choice: Choice? = nil
  ) -> Outcome {
    let records = sides.compactMap { side in side.snapshot.record.map { (side, $0) } }
    let tombstones = sides.compactMap(\.snapshot.tombstone)
    let deletion = tombstones.max { $0.hash < $1.hash }.map(Snapshot.tombstone)
    guard let first = records.first?.1 else { return Outcome(snapshot: deletion) }
    let schema = first.schema
    let baseRecord = base?.record.flatMap { $0.schema == schema ? $0 : nil }
    var outcome = Outcome()
    if let deletion {
      if choice == nil, let baseRecord,
        records.allSatisfy({ sameContent($0.1, baseRecord, schema: schema) })
      {
        return Outcome(snapshot: deletion)
      }
      outcome.disagreement.deletion = true
      if choice == nil { return outcome }
    }
    var values = first.values
    for (position, unit) in schema.mergeUnits.enumerated() {
      if let choice, choice.decided.units.contains(position) {
        outcome.disagreement.units.insert(position)
        for field in unit.fields { values[field] = choice.pick.values[field] }
        continue
      }
      let merged =
        unit.isCounter
        ? mergeCounter(unit.fields[0], records, base: baseRecord, rules: rules)
        : mergePlain(unit, position, records, base: baseRecord, rules: rules)
      switch merged {
      case .value(let unitValues):
        for (field, value) in zip(unit.fields, unitValues) { values[field] = value }
      case .conflict(let belowZero):
        outcome.disagreement.units.insert(position)
        if belowZero { outcome.disagreement.belowZero.insert(position) }
        if let choice {
          for field in unit.fields { values[field] = choice.pick.values[field] }
        }
      }
    }
    if let time = schema.changeTimeIndex {
      values[time] = records.map { $0.1.values[time] }.max(by: isEarlier) ?? values[time]
    }
    for (index, field) in schema.fields.enumerated() where field.isDeviceLocal {
      values[index] = .none  // whoever receives the merge keeps its own
    }
    guard outcome.disagreement.isEmpty || choice != nil,
      let record = try? Record(schema: schema, id: first.id, values: values)
    else { return outcome }
    if choice == nil {
      do {
        try schema.validate(record)
      } catch {
        // Each side was valid; their mix is not: every unit they differ in is in dispute.
        outcome.disagreement.units = differingUnits(records.map(\.1), schema: schema)
        return outcome
      }
    }
    outcome.snapshot = .record(record)
    return outcome
  }

  private enum UnitMerge {
    case value([FieldValue])
    case conflict(belowZero: Bool)
  }

  private static func mergePlain(
    _ unit: MergeUnit, _ position: Int, _ records: [(MergeSide, Record)], base: Record?,
    rules: MergeRules
  ) -> UnitMerge {
    func value(_ record: Record) -> [FieldValue] { unit.fields.map { record.values[$0] } }
    let baseValue = base.map(value)
    var changed = [[FieldValue]]()
    for (side, record) in records {
      let mine = value(record)
      let touched = rules.setBackIsChange && side.touched.contains(position)
      if (mine != baseValue || touched) && !changed.contains(mine) { changed.append(mine) }
    }
    if changed.isEmpty { return .value(baseValue ?? value(records[0].1)) }
    return changed.count == 1 ? .value(changed[0]) : .conflict(belowZero: false)
  }

  private static func mergeCounter(
    _ field: Int, _ records: [(MergeSide, Record)], base: Record?, rules: MergeRules
  ) -> UnitMerge {
    let column = records.map { $0.1.values[field] }
    let baseValue = base?.values[field]
    let changed = column.filter { $0 != baseValue }
    guard let one = changed.first else { return .value([baseValue ?? column[0]]) }
    guard case .counter(let epoch) = one, changed.allSatisfy({ sameEpoch($0, one) }),
      base != nil || column.allSatisfy({ sameEpoch($0, one) })
    else {
      // Not moves of one epoch: one side's new value (an optional counter cleared) is taken,
      // different ones (a recount against moves, two recounts) are in dispute.
      return changed.allSatisfy({ $0 == one }) ? .value([one]) : .conflict(belowZero: false)
    }
    // Every side in that epoch (an unchanged one holds smaller tallies, never larger).
    let counters = column.compactMap { value -> Counter? in
      guard case .counter(let counter) = value, counter.isSameEpoch(as: epoch) else { return nil }
      return counter
    }
    let merged = rules.combineCounters(counters)
    guard let total = merged.value, total >= 0 else { return .conflict(belowZero: true) }
    return .value([.counter(merged)])
  }

  private static func sameEpoch(_ value: FieldValue, _ other: FieldValue) -> Bool {
    guard case .counter(let a) = value, case .counter(let b) = other else { return value == other }
    return a.isSameEpoch(as: b)
  }

  /// Whether two records hold the same synced values, the change time aside.
  static func sameContent(_ record: Record, _ other: Record, schema: Schema) -> Bool {
    schema.mergeUnits.allSatisfy { unit in
      unit.fields.allSatisfy { record.values[$0] == other.values[$0] }
    }
  }

  private static func differingUnits(_ records: [Record], schema: Schema) -> Set<Int> {
    Set(
      schema.mergeUnits.indices.filter { position in
        let fields = schema.mergeUnits[position].fields
        return records.contains { record in
          fields.contains { record.values[$0] != records[0].values[$0] }
        }
      })
  }

  private static func isEarlier(_ a: FieldValue, _ b: FieldValue) -> Bool {
    guard case .date(let x) = a, case .date(let y) = b else { return false }
    return x < y
  }
}
