import StashModel

extension MirrorContent {
  /// Checks what must always hold of the mirror; returns the problems found.
  ///
  /// Every version's hash matches its snapshot and is filed under its record, the leaves are
  /// exactly the versions no version names as a parent, the running version count is right,
  /// and every pending export is a known version. It recomputes every hash.
  ///
  /// - Returns: One sentence per problem; empty when all is well.
  public func checkInvariants() -> [String] {
    var problems = [String]()
    for (key, known) in versions {
      let named = known.values.reduce(into: Set<SnapshotHash>()) { $0.formUnion($1.parents) }
      let leaves = Set(known.keys).subtracting(named)
      if leaves != (leafHashes[key] ?? []) {
        problems.append("the leaves of \(key) are out of date")
      }
      for (hash, version) in known {
        if version.hash != hash || version.snapshot.hash != hash {
          problems.append("version \(hash.short) of \(key) does not match its content")
        }
        if version.key != key { problems.append("version \(hash.short) is filed under \(key)") }
        if version.generation < 1 { problems.append("version \(hash.short) has generation 0") }
      }
    }
    for key in leafHashes.keys where versions[key] == nil {
      problems.append("\(key) has leaves but no versions")
    }
    let counted = versions.values.reduce(0) { $0 + $1.count }
    if counted != versionCount {
      problems.append("the version count says \(versionCount), but there are \(counted)")
    }
    for ref in pending where versions[ref.key]?[ref.hash] == nil {
      problems.append("pending export \(ref.hash.short) of \(ref.key) is not a known version")
    }
    return problems
  }
}
