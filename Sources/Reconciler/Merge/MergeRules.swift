public import StashModel

/// The rules concurrent versions merge by: DESIGN's (``design``), or a deliberately weakened
/// one that a test shows the random histories catch.
public struct MergeRules: Sendable {
  /// How the counters of one epoch combine: each device's larger tally.
  public var combineCounters: @Sendable ([Counter]) -> Counter
  /// Whether a unit set back to the base's value, after a version on the way had another,
  /// counts as changed (rule 5: it does; git's rule, "unchanged", loses the set-back).
  public var setBackIsChange: Bool

  /// Rules with the given parts.
  public init(
    combineCounters: @escaping @Sendable ([Counter]) -> Counter, setBackIsChange: Bool
  ) {
    self.combineCounters = combineCounters
    self.setBackIsChange = setBackIsChange
  }

  /// DESIGN's rules.
  public static let design = MergeRules(
    combineCounters: { counters in counters[0].merged(with: Array(counters.dropFirst())) },
    setBackIsChange: true)
}
