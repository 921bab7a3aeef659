import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The index beside `cloud.store` is derived and checked every time: a mirror opened focused
/// on a few records through it holds what a whole open holds for those records and all that
/// is not versions; whatever happened to the index or the store since it was written, the
/// open falls back to the whole file and says why.
@Suite struct MirrorIndexTests {
  static let storeID = StoreID("00000000-0000-4000-8000-00000000c10d")!

  static func indexPath(_ folder: URL) -> String { folder.path + "/cloud.store.index" }

  /// A random history with an index, its whole content, and a focus on a few of its records.
  static func prepared(
    _ folder: URL, seed: UInt64, steps: Int = 40,
    policy: MirrorStore.IndexPolicy = MirrorHistory.eager
  ) throws -> (history: MirrorHistory, whole: MirrorContent, focus: Set<RecordKey>) {
    var history = MirrorHistory(seed: seed)
    try history.build(folder, storeID: storeID, steps: steps, policy: policy)
    let whole = try MirrorHistory.open(folder, storeID: storeID).content
    let focus = Set(history.keys.prefix(5))
    return (history, whole, focus)
  }

  /// Opens focused and expects a whole open that says why, with the whole content.
  static func expectFallBack(
    _ folder: URL, focus: Set<RecordKey>, whole: MirrorContent, _ note: String,
    policy: MirrorStore.IndexPolicy = MirrorHistory.never
  ) throws {
    let mirror = try MirrorHistory.open(folder, storeID: storeID, focus: focus, policy: policy)
    guard case .ignored(let reason) = mirror.indexUse else {
      Issue.record("\(note): the index was used (\(mirror.indexUse))")
      return
    }
    #expect(!reason.isEmpty)
    #expect(mirror.content.isComplete, "\(note): \(reason)")
    expectSameWhole(mirror.content, whole, "\(note) (\(reason))")
  }

  static func flipByte(at offset: Int, of path: String) throws {
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    bytes[offset] ^= 0x5A
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  @Test func aFocusedOpenHoldsWhatAWholeOpenHoldsForItsRecordsOnRandomHistories() throws {
    let base = UInt64.random(in: 0..<1_000_000)
    print("MirrorIndexTests seed: \(base)")
    for round in 0..<10 {
      let seed = base + UInt64(round)
      try withTemporaryFolder { folder in
        var history = MirrorHistory(seed: seed)
        let policy = round % 2 == 0 ? MirrorHistory.once : MirrorHistory.eager
        try history.build(folder, storeID: Self.storeID, steps: 30 + round * 5, policy: policy)
        if round % 4 == 1 {
          // The index at the end of the history (a "once" index covers its first versions).
          _ = try MirrorHistory.open(folder, storeID: Self.storeID, policy: MirrorHistory.eager)
        }
        // A tail after the index, written by a store that does not rewrite it.
        let writer = try MirrorHistory.open(folder, storeID: Self.storeID)
        for _ in 0..<(round % 3 * 2) { try history.step(writer) }
        let whole = try MirrorHistory.open(folder, storeID: Self.storeID).content
        #expect(whole.checkInvariants() == [], "seed \(seed)")
        for pick in 0..<4 {
          var focus = Set(
            history.keys.filter { _ in Int.random(in: 0..<4, using: &history.random) == 0 })
          if pick == 0 { focus = [] }
          if pick == 1 { focus.insert(RecordKey(model: "item", id: RecordID.make())) }
          let mirror = try MirrorHistory.open(folder, storeID: Self.storeID, focus: focus)
          guard case .used = mirror.indexUse else {
            Issue.record("seed \(seed): the index was not used (\(mirror.indexUse))")
            continue
          }
          #expect(!mirror.content.isComplete, "seed \(seed)")
          expectSame(mirror.content, whole, keys: focus, "seed \(seed), focus \(pick)")
        }
      }
    }
  }

  @Test func theTailAfterTheIndexIsReplayedWithinTheLimit() throws {
    try withTemporaryFolder { folder in
      var (history, _, focus) = try Self.prepared(folder, seed: 11, policy: MirrorHistory.once)
      // The index at the end of the history, then a tail written without rewriting it.
      _ = try MirrorHistory.open(folder, storeID: Self.storeID, policy: MirrorHistory.eager)
      let writer = try MirrorHistory.open(folder, storeID: Self.storeID)
      for _ in 0..<8 { try history.step(writer) }
      // Versions the prefix already holds, of records outside the focus, arriving again
      // (one with a higher generation): the tail must not count them as new.
      try writer.update { content, transaction in
        for key in history.keys.suffix(10) {
          guard let known = content.versions[key]?.values.sorted(by: { $0.id < $1.id }).first
          else { continue }
          transaction.merge(known)
          transaction.merge(
            MirrorVersion(
              snapshot: known.snapshot, parents: known.parents, generation: known.generation + 5,
              author: known.author, authoredAt: known.authoredAt))
        }
      }
      let whole = try MirrorHistory.open(folder, storeID: Self.storeID).content
      let mirror = try MirrorHistory.open(folder, storeID: Self.storeID, focus: focus)
      guard case .used(let tail) = mirror.indexUse else {
        Issue.record("the index was not used (\(mirror.indexUse))")
        return
      }
      #expect(tail > 0)
      expectSame(mirror.content, whole, keys: focus, "tail of \(tail) bytes")
    }
  }

  @Test func aTailPastTheLimitOpensTheWholeFile() throws {
    try withTemporaryFolder { folder in
      var (history, _, focus) = try Self.prepared(folder, seed: 12, policy: MirrorHistory.once)
      let writer = try MirrorHistory.open(folder, storeID: Self.storeID)
      for _ in 0..<4 { try history.step(writer) }
      let whole = try MirrorHistory.open(folder, storeID: Self.storeID).content
      let strict = MirrorStore.IndexPolicy(
        minimumVersions: .max, rewriteAfterBytes: 1 << 40, maximumTailBytes: 16)
      try Self.expectFallBack(
        folder, focus: focus, whole: whole, "tail past the limit", policy: strict)
    }
  }

  @Test func aMissingIndexOpensTheWholeFile() throws {
    try withTemporaryFolder { folder in
      let (_, whole, focus) = try Self.prepared(folder, seed: 13)
      try FileManager.default.removeItem(atPath: Self.indexPath(folder))
      try Self.expectFallBack(folder, focus: focus, whole: whole, "missing")
    }
  }

  @Test func anIndexFromBeforeACompactionIsNotUsed() throws {
    try withTemporaryFolder { folder in
      let (_, whole, focus) = try Self.prepared(folder, seed: 14)
      try MirrorHistory.open(folder, storeID: Self.storeID).file.compact()
      try Self.expectFallBack(folder, focus: focus, whole: whole, "after compaction")
    }
  }

  @Test func anIndexWithOneCorruptBodyBlockIsNotUsed() throws {
    try withTemporaryFolder { folder in
      let (history, whole, _) = try Self.prepared(folder, seed: 16)
      let path = Self.indexPath(folder)
      let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
      // The last byte (the state, read by every focused open), then the first body byte
      // (an entry: a focus on every record reads every entry).
      try Self.flipByte(at: size - 1, of: path)
      try Self.expectFallBack(folder, focus: [], whole: whole, "corrupt last block")
      try Self.flipByte(at: size - 1, of: path)
      let mirror = try MirrorHistory.open(folder, storeID: Self.storeID, focus: [])
      #expect(mirror.indexUse == .used(tailBytes: 0), "the byte flipped back")
      let bodyLength = try Self.bodyLength(path)
      try Self.flipByte(at: size - bodyLength, of: path)
      try Self.expectFallBack(folder, focus: Set(history.keys), whole: whole, "corrupt first block")
    }
  }

  /// The body's length, from the head (after the magic, version, head length and CRC).
  static func bodyLength(_ path: String) throws -> Int {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let start = "stash.mirror.index\n".utf8.count + 16
    return bytes[start..<(start + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
  }

  /// Reads a little-endian integer of `bytes` at `offset`.
  static func integer(_ bytes: [UInt8], at offset: Int, width: Int) -> Int {
    bytes[offset..<(offset + width)].reversed().reduce(0) { $0 << 8 | Int($1) }
  }

  /// Writes `value` little-endian into `bytes` at `offset`.
  static func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
    for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
  }

  @Test func anIndexWhoseLinesAreOfAnotherRecordIsNotUsedEvenWithGoodChecksums() throws {
    try withTemporaryFolder { folder in
      let (history, whole, _) = try Self.prepared(folder, seed: 26)
      let path = Self.indexPath(folder)
      var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      // Swap the first lines of the first two entries, then make every checksum right again.
      let fixed = "stash.mirror.index\n".utf8.count + 16
      let headLength = Self.integer(bytes, at: fixed - 12, width: 8)
      let bodyLength = Self.integer(bytes, at: fixed, width: 8)
      let blocks = Self.integer(bytes, at: fixed + 8, width: 8)
      let body = bytes.count - bodyLength
      let firstID = body + 6
      let lines = Self.integer(bytes, at: firstID + 36, width: 4)
      let secondID = firstID + 36 + 4 + 20 * lines + 6
      let (a, b) = (firstID + 40, secondID + 40)  // after the id and the line count
      let first = Array(bytes[a..<(a + 20)])
      bytes[a..<(a + 20)] = bytes[b..<(b + 20)]
      bytes[b..<(b + 20)] = first[...]
      for block in 0..<blocks {
        let start = body + block * 4096
        let sum = CRC32.checksum(Array(bytes[start..<min(start + 4096, bytes.count)]))
        Self.put(sum, into: &bytes, at: fixed + 16 + 4 * block)
      }
      Self.put(
        CRC32.checksum(Array(bytes[fixed..<(fixed + headLength)])), into: &bytes, at: fixed - 4)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      try Self.expectFallBack(
        folder, focus: Set(history.keys), whole: whole, "lines of another record")
    }
  }

  @Test func theSavesOfOneOpenMirrorWriteTheIndexOnceAndTheNextWholeOpenAgain() throws {
    try withTemporaryFolder { folder in
      // One write per open store (the standard policy has none: a sync writes it at its end).
      let policy = MirrorStore.IndexPolicy(
        minimumVersions: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30,
        writesPerOpenStore: 1)
      var history = MirrorHistory(seed: 24)
      try history.build(folder, storeID: Self.storeID, steps: 20, policy: policy)
      let behind = try MirrorHistory.open(folder, storeID: Self.storeID, focus: [])
      guard case .used(let tail) = behind.indexUse else {
        Issue.record("the index was not used (\(behind.indexUse))")
        return
      }
      #expect(tail > 0, "written once, at the first save with a version")
      _ = try MirrorHistory.open(folder, storeID: Self.storeID, policy: policy)
      let current = try MirrorHistory.open(folder, storeID: Self.storeID, focus: [])
      #expect(current.indexUse == .used(tailBytes: 0), "the whole open wrote it again")
    }
  }

  @Test func aFocusedMirrorReadsTheWholeFileWhenAnotherProcessWroteOfRecordsItDidNotLoad()
    throws
  {
    try withTemporaryFolder { folder in
      let (history, _, _) = try Self.prepared(folder, seed: 25)
      let focus: Set<RecordKey> = [history.keys[0]]
      let focused = try MirrorHistory.open(folder, storeID: Self.storeID, focus: focus)
      #expect(!focused.content.isComplete)
      // Another process merges again versions the prefix holds, of records not loaded here.
      let other = try MirrorHistory.open(folder, storeID: Self.storeID)
      try other.update { content, transaction in
        for key in history.keys.dropFirst() {
          if let known = content.versions[key]?.values.sorted(by: { $0.id < $1.id }).first {
            transaction.merge(known)
          }
        }
      }
      try focused.refresh()
      #expect(focused.content.isComplete, "it read the whole file")
      expectSameWhole(
        focused.content, try MirrorHistory.open(folder, storeID: Self.storeID).content,
        "after catching up")
    }
  }

  @Test func aSmallMirrorHasNoIndex() throws {
    try withTemporaryFolder { folder in
      var history = MirrorHistory(seed: 20)
      try history.build(folder, storeID: Self.storeID, steps: 5, policy: .standard)
      #expect(!FileManager.default.fileExists(atPath: Self.indexPath(folder)))
      let mirror = try MirrorHistory.open(folder, storeID: Self.storeID, focus: [])
      #expect(mirror.indexUse == .ignored("there is no index"))
    }
  }

  /// The same changes saved through a focused mirror and through a whole one.
  static func change(_ mirror: MirrorStore, keys: [RecordKey]) throws {
    try mirror.update { content, transaction in
      for (number, key) in keys.enumerated() {
        let record = Item(
          id: key.id, name: "Saved \(number)", quantity: 3, createdAt: MirrorHistory.epoch
        ).record
        transaction.write(
          .record(record), parents: content.leafIDs(of: key), author: MirrorHistory.here,
          at: MirrorHistory.epoch)
      }
    }
    try mirror.update { content, transaction in
      transaction.markExporting(segment: "devices/x/999999.jsonl", export: "export-last")
      transaction.markExported(content.pending.sorted(), segment: "devices/x/999999.jsonl")
      transaction.recordTransfer(.export, at: MirrorHistory.epoch)
    }
    try mirror.update { content, transaction in
      let key = keys[0]
      transaction.merge(
        MirrorVersion(
          snapshot: .record(
            Item(id: key.id, name: "Theirs", createdAt: MirrorHistory.epoch).record),
          parents: content.leafIDs(of: key),
          generation: content.nextGeneration(after: content.leafIDs(of: key), of: key),
          author: MirrorHistory.other, authoredAt: MirrorHistory.epoch))
    }
  }

  @Test func savingThroughAFocusedMirrorGivesWhatSavingThroughAWholeOneGives() throws {
    try withTemporaryFolder { focusedFolder in
      try withTemporaryFolder { wholeFolder in
        let (history, _, _) = try Self.prepared(focusedFolder, seed: 21)
        _ = try Self.prepared(wholeFolder, seed: 21)
        let keys = Array(history.keys.suffix(3))
        let focused = try MirrorHistory.open(focusedFolder, storeID: Self.storeID, focus: Set(keys))
        guard case .used = focused.indexUse else {
          Issue.record("the index was not used (\(focused.indexUse))")
          return
        }
        try Self.change(focused, keys: keys)
        try Self.change(try MirrorHistory.open(wholeFolder, storeID: Self.storeID), keys: keys)
        expectSame(
          focused.content, try MirrorHistory.open(wholeFolder, storeID: Self.storeID).content,
          keys: Set(keys), "in memory")
        expectSameWhole(
          try MirrorHistory.open(focusedFolder, storeID: Self.storeID).content,
          try MirrorHistory.open(wholeFolder, storeID: Self.storeID).content, "reopened whole")
      }
    }
  }

  @Test func aCompactionAfterAFocusedOpenLosesNothing() throws {
    try withTemporaryFolder { folder in
      let (_, whole, focus) = try Self.prepared(folder, seed: 22)
      let focused = try MirrorHistory.open(folder, storeID: Self.storeID, focus: focus)
      #expect(!focused.content.isComplete)
      try focused.file.compact()
      expectSameWhole(
        try MirrorHistory.open(folder, storeID: Self.storeID).content, whole, "compacted")
    }
  }

  @Test func aFocusedMirrorDueForCompactionCompactsFromTheWholeFile() throws {
    try withTemporaryFolder { folder in
      let (history, _, focus) = try Self.prepared(folder, seed: 23, steps: 60)
      let eager = CompactionPolicy(minimumLines: 0, linesPerLiveChange: 1)
      let focused = try MirrorHistory.open(
        folder, storeID: Self.storeID, focus: focus, compaction: eager)
      #expect(!focused.content.isComplete)
      let keys = Array(focus.sorted())
      try Self.change(focused, keys: keys)
      #expect(focused.content.isComplete, "it read the whole file to compact")
      try withTemporaryFolder { reference in
        _ = try Self.prepared(reference, seed: 23, steps: 60)
        try Self.change(try MirrorHistory.open(reference, storeID: Self.storeID), keys: keys)
        expectSameWhole(
          try MirrorHistory.open(folder, storeID: Self.storeID).content,
          try MirrorHistory.open(reference, storeID: Self.storeID).content, "compacted")
      }
      _ = history
    }
  }
}
