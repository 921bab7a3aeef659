public import JSONLines
import StashBase
public import StashModel

extension MirrorContent {
  public mutating func apply(_ change: MirrorChange, at span: LineSpan) {
    if case .addVersion(let version, _) = change, let focusedKeys,
      !focusedKeys.contains(version.key)
    {
      needsWholeRead = true
    }
    apply(change)
    guard linesAreKnown else { return }
    if case .addVersion(let version, _) = change {
      versionLines.append((version.key, span))
    }
    lastLine = span
  }

  /// Makes room for the versions of a saved transaction before it is applied (a first sync's
  /// pass, an import): the tables of records, lines and pending versions grow once, to
  /// what they will hold, instead of by doubling. Only records the mirror has no version of
  /// add an entry to its table of records (a record given several new versions is counted
  /// for each: room reserved and never written costs no memory the system gives).
  public mutating func reserveCapacity(forApplying changes: [MirrorChange]) {
    guard changes.count >= 1_024 else { return }  // a small save: nothing worth it
    var versions = 0
    var newRecords = 0
    var pending = 0
    for change in changes {
      guard case .addVersion(let version, let isPending) = change else { continue }
      versions += 1
      if isPending { pending += 1 }
      if self.versions[version.key] == nil { newRecords += 1 }
    }
    guard versions >= 1_024 else { return }
    self.versions.reserveCapacity(self.versions.count + newRecords)
    if linesAreKnown { versionLines.reserveCapacity(versionLines.count + versions) }
    if pending > 0 { self.pending.reserveCapacity(self.pending.count + pending) }
  }

  public mutating func forgetLineSpans() {
    linesAreKnown = false
    versionLines = []
    lastLine = nil
  }

  /// Whether this content holds every version of `key` (always, when it is complete).
  public func holdsEveryVersion(of key: RecordKey) -> Bool {
    focusedKeys?.contains(key) ?? true
  }

  /// The changes that rebuild everything but the versions and which are pending: the zone,
  /// the segments read, exported (in order) and being exported, the last transfers and the
  /// peers (what the index records by value).
  var stateChanges: [MirrorChange] {
    var changes = [MirrorChange]()
    if let zone { changes.append(.bindZone(zone)) }
    changes += readSegments.sorted().map { .markRead(segment: $0) }
    changes += exportedSegments.map { .markExported([], segment: $0) }
    changes += exportIDs.sorted { $0.key < $1.key }.map {
      .markExporting(segment: $0.value, export: $0.key)
    }
    if let lastImport { changes.append(.recordTransfer(.import, at: lastImport)) }
    if let lastExport { changes.append(.recordTransfer(.export, at: lastExport)) }
    changes += peers.keys.sorted().map { .notePeer(peers[$0]!) }
    return changes
  }
}
