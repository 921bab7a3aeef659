public import JSONLines
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
