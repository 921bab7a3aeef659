import MirrorStore
import StashModel

/// DESIGN's rule 4: several leaves merge pairwise in a canonical order.
///
/// The leaves are sorted by version id; the first is the running result; each next leaf is
/// merged into it against the lowest common ancestor of that leaf and the leaves already
/// folded in (the running result counts as a version whose parents are those leaves, as
/// `git merge-base` treats several commits). Several lowest common ancestors (a criss-cross:
/// two devices merged overlapping sets of leaves, or two people resolved one conflict) make
/// a virtual base, their merge by this same rule, or no base when that merge conflicts.
/// Without a choice the fold stops at the first step in conflict; with one (a resolution),
/// every step merges, the units in dispute taking the chosen side's values.
struct LeafFold {
  let graph: VersionGraph
  let rules: MergeRules

  /// What a fold gives.
  struct Outcome {
    /// The merge, or `nil` when some step disagreed (and no choice was given).
    var snapshot: Snapshot?
    /// What the steps disagreed on.
    var disagreement = Disagreement()
    /// Whether some step had several lowest common ancestors.
    var crissCross = false
  }

  /// Folds `leaves` (version ids of `graph`, at least one).
  func fold(_ leaves: [VersionID], choosing pick: Record? = nil) -> Outcome {
    let order = leaves.sorted()
    var outcome = Outcome(snapshot: graph.versions[order[0]]!.snapshot)
    var folded = [order[0]]
    for next in order.dropFirst() {
      let (base, touched, lowest) = self.base(of: folded, and: next)
      if lowest > 1 { outcome.crissCross = true }
      folded.append(next)
      let sides = [
        MergeSide(snapshot: outcome.snapshot!, touched: touched.mine),
        MergeSide(snapshot: graph.versions[next]!.snapshot, touched: touched.theirs),
      ]
      let choice = pick.map { FieldMerge.Choice(pick: $0, decided: outcome.disagreement) }
      let step = FieldMerge.merge(sides, base: base, rules: rules, choice: choice)
      outcome.disagreement.formUnion(step.disagreement)
      guard let merged = step.snapshot else {
        outcome.snapshot = nil
        return outcome
      }
      outcome.snapshot = merged
    }
    return outcome
  }

  /// The base of one step, the units each side touched since it, and how many lowest common
  /// ancestors there were.
  private func base(
    of folded: [VersionID], and next: VersionID
  ) -> (Snapshot?, (mine: Set<Int>, theirs: Set<Int>), Int) {
    let mine = graph.ancestors(ofAll: folded)
    let theirs = graph.ancestors(of: next)
    let lowest = graph.lowest(of: mine.intersection(theirs))
    let base: Snapshot?
    switch lowest.count {
    case 0: base = nil
    case 1: base = graph.versions[lowest[0]]!.snapshot
    default: base = fold(lowest).snapshot  // a virtual base, or none when they conflict
    }
    guard let baseRecord = base?.record else { return (base, ([], []), lowest.count) }
    return (
      base,
      (
        edited(in: mine.subtracting(theirs), base: baseRecord),
        edited(in: theirs.subtracting(mine), base: baseRecord)
      ),
      lowest.count
    )
  }

  /// The units some live version among `versions` (what one side has and the other has not
  /// seen) edited: its value differs from every live parent's (a merge takes each value from
  /// a parent, so it edits nothing; a version with no live parent here is compared with the
  /// base). This is rule 5's "a side changed a unit if any version on its path had another
  /// value of it", read so that a version of a branch older than the base (which differs from
  /// the base without having changed anything) does not count: that reading made two devices
  /// that alternately edit and restock conflict at every round.
  private func edited(in versions: Set<VersionID>, base: Record) -> Set<Int> {
    var units = Set<Int>()
    let schema = base.schema
    for id in versions {
      guard let node = graph.versions[id], let record = node.snapshot.record,
        record.schema == schema
      else { continue }
      var references = node.parents.compactMap { graph.versions[$0]?.snapshot.record }
        .filter { $0.schema == schema }
      if references.isEmpty { references = [base] }
      for (position, unit) in schema.mergeUnits.enumerated()
      where !unit.isCounter && !units.contains(position)
        && references.allSatisfy({ reference in
          unit.fields.contains { record.values[$0] != reference.values[$0] }
        })
      {
        units.insert(position)
      }
    }
    return units
  }
}
