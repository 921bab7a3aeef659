public import MirrorStore
public import StashModel

extension DecisionTable {
  /// The merge of `leaves` as every device computes it (rule 4), or `nil` when they do not
  /// merge: what tells another device's merge from a resolution in a record's history.
  ///
  /// - Parameters:
  ///   - leaves: Versions of one record, all in `versions`.
  ///   - versions: The record's version graph.
  public static func merge(
    of leaves: Set<VersionID>, in versions: RecordVersions
  ) -> Snapshot? {
    guard !leaves.isEmpty, leaves.allSatisfy({ versions[$0] != nil }) else { return nil }
    return LeafFold(graph: VersionGraph(versions), rules: .design).fold(Array(leaves)).snapshot
  }
}
