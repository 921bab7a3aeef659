import StashBase
import StashModel

extension MirrorContent {
  /// Checks what must always hold of the mirror; returns the problems found.
  ///
  /// Every version's snapshot hash matches its snapshot and its id derives from that hash and
  /// its parents (format-1 versions keep their snapshot hash as id), it is filed under its
  /// record, no record's graph has a cycle and every record with versions has a leaf, the
  /// leaves are exactly the versions no version names as a parent, the running version count
  /// is right, and every pending export is a known version. It recomputes every hash.
  ///
  /// - Returns: One sentence per problem; empty when all is well.
  public func checkInvariants() -> [String] {
    var problems = [String]()
    for (key, known) in versions {
      let named = known.values.reduce(into: Set<VersionID>()) { $0.formUnion($1.parents) }
      let leaves = known.keys.subtracting(named)
      if leaves != known.leafIDs {
        problems.append("the leaves of \(key) are out of date")
      }
      if leaves.isEmpty { problems.append("\(key) has versions but no leaf (a cycle)") }
      for id in known.keys {
        let version = known[id]!
        if version.id != id { problems.append("version \(id.short) is filed under another id") }
        if version.snapshot.hash != version.hash {
          problems.append("version \(id.short) of \(key) does not match its content")
        }
        if !version.isLegacy
          && VersionID.derive(snapshot: version.hash, parents: version.parents) != id
        {
          problems.append(
            "the id of version \(id.short) of \(key) does not derive from its parents")
        }
        if let record = version.snapshot.record, (try? record.schema.validate(record)) == nil {
          problems.append("version \(id.short) of \(key) fails its model's checks")
        }
        if version.parents.contains(id) { problems.append("version \(id.short) names itself") }
        if version.key != key { problems.append("version \(id.short) is filed under \(key)") }
        if version.generation < 1 { problems.append("version \(id.short) has generation 0") }
      }
      if let cycle = firstCycle(in: known) {
        problems.append("\(key) has a cycle through version \(cycle.short)")
      }
    }
    let counted = versions.values.reduce(0) { $0 + $1.count }
    if counted != versionCount {
      problems.append("the version count says \(versionCount), but there are \(counted)")
    }
    for ref in pending where versions[ref.key]?[ref.id] == nil {
      problems.append("pending export \(ref.id.short) of \(ref.key) is not a known version")
    }
    return problems
  }

  /// A version on a cycle of the graph, if there is one (an iterative depth-first search).
  private func firstCycle(in known: RecordVersions) -> VersionID? {
    var state = [VersionID: Bool]()  // false: on the current path; true: finished
    for start in known.keys.sorted() where state[start] == nil {
      var stack: [(VersionID, [VersionID])] = [(start, Array(known[start]!.parents))]
      state[start] = false
      while !stack.isEmpty {
        guard let next = stack[stack.count - 1].1.popLast() else {
          state[stack.removeLast().0] = true
          continue
        }
        guard let version = known[next] else { continue }
        switch state[next] {
        case false?: return next
        case true?: continue
        case nil:
          state[next] = false
          stack.append((next, Array(version.parents)))
        }
      }
    }
    return nil
  }
}
