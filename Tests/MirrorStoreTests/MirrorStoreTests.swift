import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

private let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
private let alice = DeviceID("00000000-0000-4000-8000-00000000a11c")!
private let bob = DeviceID("00000000-0000-4000-8000-000000000b0b")!

private func openMirror(_ folder: URL) throws -> MirrorStore {
  try MirrorStore.open(
    folder: folder.path, schemas: InventorySchemas.registry, lock: FolderLock(folder: folder.path),
    create: (alice, epoch, nil))
}

private func version(
  _ record: Record, parents: [MirrorVersion] = [], generation: Int64? = nil,
  author: DeviceID = bob
) -> MirrorVersion {
  MirrorVersion(
    snapshot: .record(record), parents: Set(parents.map(\.id)),
    generation: generation ?? (parents.map(\.generation).max() ?? 0) + 1, author: author,
    authoredAt: epoch)
}

private func tube(
  _ quantity: Int64, id: RecordID = RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!
) -> Record {
  Item(id: id, name: "Koleston", quantity: quantity, createdAt: epoch).record
}

@Suite struct MirrorStoreTests {
  @Test func leavesDoNotDependOnArrivalOrderOrRepeats() throws {
    let root = version(tube(5))
    let left = version(tube(4), parents: [root])
    let right = version(tube(3), parents: [root], author: alice)
    let merge = version(tube(2), parents: [left])
    let all = [root, left, right, merge]
    var random = SeededRandom(seed: 77)
    var seen = Set<[SnapshotHash]>()
    for round in 0..<40 {
      try withTemporaryFolder { folder in
        let mirror = try openMirror(folder)
        var arrivals = all + all.filter { _ in Bool.random(using: &random) }
        arrivals.shuffle(using: &random)
        for arrival in arrivals {
          try mirror.update { _, transaction in transaction.merge(arrival) }
        }
        let side = mirror.content.side(for: root.key)
        seen.insert(side.leaves.map(\.hash))
        #expect(
          Set(side.leaves.map(\.hash)) == [merge.hash, right.hash], "round \(round), seed 77")
        #expect(mirror.content.checkInvariants() == [])
      }
    }
    #expect(seen.count == 1, "the winner order is the same whatever the arrival order")
  }

  @Test func theWinnerIsLiveOverTombstoneThenHigherGenerationThenLargerHash() {
    let root = version(tube(5))
    let tombstone = MirrorVersion(
      snapshot: .tombstone(Tombstone(deleting: tube(5), at: epoch)), parents: [root.id],
      generation: 9, author: alice, authoredAt: epoch)
    let edit = version(tube(4), parents: [root])
    #expect(edit.beats(tombstone))
    let deeper = version(tube(3), generation: 3)
    #expect(deeper.beats(edit))
    let same = [version(tube(7), generation: 2), version(tube(8), generation: 2)]
    let larger = same.max { $0.hash < $1.hash }!
    let smaller = same.min { $0.hash < $1.hash }!
    #expect(larger.beats(smaller) && !smaller.beats(larger))
  }

  @Test func concurrentTombstonesAgreeAndAreNotAConflict() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let root = version(tube(5))
      let byAlice = MirrorVersion(
        snapshot: .tombstone(Tombstone(deleting: tube(5), at: epoch)), parents: [root.id],
        generation: 2, author: alice, authoredAt: epoch)
      let byBob = MirrorVersion(
        snapshot: .tombstone(Tombstone(deleting: tube(5), at: Timestamp(secondsSince1970: 9)!)),
        parents: [root.id], generation: 2, author: bob, authoredAt: epoch)
      try mirror.update { _, transaction in
        transaction.merge(root)
        transaction.merge(byAlice)
        transaction.merge(byBob)
      }
      let side = mirror.content.side(for: root.key)
      #expect(side.leaves.count == 2)
      #expect(!side.isConcurrent)
      #expect(side.winner?.snapshot.isTombstone == true)
    }
  }

  @Test func writesArePendingUntilExportedAndBuildGenerations() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let (first, second) = try mirror.update { content, transaction in
        let first = transaction.write(.record(tube(5)), parents: [], author: alice, at: epoch)
        let second = transaction.write(
          .record(tube(4)), parents: [first.id], author: alice, at: epoch)
        return (first, second)
      }
      #expect(first.generation == 1 && second.generation == 2)
      #expect(
        mirror.content.pendingVersions.map(\.hash).sorted() == [first.hash, second.hash].sorted())
      #expect(mirror.content.side(for: first.key).leaves.map(\.hash) == [second.hash])
      try mirror.update { content, transaction in
        transaction.markExported(
          content.pendingVersions.map(\.ref),
          segment: "devices/a/1.jsonl")
      }
      #expect(mirror.content.pending.isEmpty)
      #expect(mirror.content.descends(second.id, fromSnapshot: first.hash, key: first.key))
      #expect(!mirror.content.descends(first.id, fromSnapshot: second.hash, key: first.key))
    }
  }

  /// A batch of writes (a first sync's pass, hashed on every core) gives the versions, the
  /// generations and the file bytes that the same writes one by one give, including writes
  /// that build on one written earlier in the same transaction.
  @Test func aBatchOfWritesEqualsTheSameWritesOneByOne() throws {
    var writes = [(snapshot: Snapshot, parents: Set<VersionID>)]()
    for number in 0..<3000 {
      let id = RecordID(String(format: "3f2b8c1e-0000-4000-8000-%012x", number))!
      writes.append((.record(tube(Int64(number % 50), id: id)), []))
    }
    let first = version(tube(5), author: alice)
    writes.append((.record(tube(7)), [first.id]))
    func written(_ batch: Bool) throws -> (versions: [MirrorVersion], lines: [UInt8]) {
      try withTemporaryFolder { folder in
        let mirror = try openMirror(folder)
        let versions = try mirror.update { _, transaction in
          transaction.write(.record(tube(5)), parents: [], author: alice, at: epoch)
          return batch
            ? transaction.write(writes, author: alice, at: epoch)
            : writes.map {
              transaction.write($0.snapshot, parents: $0.parents, author: alice, at: epoch)
            }
        }
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("cloud.store")))
        // The header names this store's own id; compare what follows it.
        return (versions, Array(bytes.drop { $0 != 10 }))
      }
    }
    let (batch, one) = (try written(true), try written(false))
    #expect(batch.versions == one.versions)
    #expect(batch.lines == one.lines)
    #expect(batch.versions.last?.generation == 2)
    #expect(batch.versions.allSatisfy { $0.integrityProblem == nil })
  }

  /// A large transaction is decoded on every core before it is applied: a line whose JSON and
  /// checksum are fine but whose version does not decode still refuses the file, naming that
  /// line and not a later one (another line 900 lines on is damaged the same way).
  @Test func aLargeTransactionWithAnUndecodableLineNamesTheFirst() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let writes = (0..<3000).map { number -> (snapshot: Snapshot, parents: Set<VersionID>) in
        let id = RecordID(String(format: "3f2b8c1e-0000-4000-8000-%012x", number))!
        return (.record(tube(Int64(number % 50), id: id)), [])
      }
      try mirror.update { _, transaction in transaction.write(writes, author: alice, at: epoch) }
      let url = folder.appendingPathComponent("cloud.store")
      var lines = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      for number in [2001, 2901] {
        let line = lines[number - 1]
        let prefix = #"{"crc":"00000000","#
        let body = String(line.dropFirst(prefix.count))
          .replacingOccurrences(of: #""quantity":"#, with: #""quantity":"many","ignored":"#)
        let crc = String(CRC32.checksum(Array(body.utf8)), radix: 16)
        lines[number - 1] =
          #"{"crc":""# + String(repeating: "0", count: 8 - crc.count) + crc + #"","# + body
      }
      try Data(lines.joined(separator: "\n").utf8).write(to: url)
      #expect {
        try openMirror(folder)
      } throws: { error in
        // "damaged at line 2001 (Field 'quantity' takes a counter: …)"
        String(describing: error).contains("line 2001 (Field 'quantity'")
      }
    }
  }

  /// The pending versions come in ``VersionRef``'s order (model, id, version id), sorted on
  /// plain values: the same order as sorting the refs, over two models and several versions
  /// of one record.
  @Test func pendingVersionsComeInVersionRefOrder() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      var random = SeededRandom(seed: 41)
      try mirror.update { _, transaction in
        for number in 0..<300 {
          let id = RecordID(
            String(
              format: "%08x-0000-4000-8000-%012x",
              UInt32.random(in: 0...UInt32.max, using: &random), number))!
          let snapshot: Snapshot =
            number % 3 == 0
            ? .record(Location(id: id, name: "Shelf \(number)", createdAt: epoch).record)
            : .record(tube(Int64(number), id: id))
          let first = transaction.write(snapshot, parents: [], author: alice, at: epoch)
          if number % 7 == 0 {
            transaction.write(
              .record(tube(1, id: id)), parents: [first.id], author: alice, at: epoch)
          }
        }
      }
      let refs = mirror.content.pendingVersions.map(\.ref)
      #expect(refs.count == 343)
      #expect(refs == mirror.content.pending.sorted())
    }
  }

  @Test func everythingSurvivesReopeningAndCompaction() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let root = version(tube(5))
      try mirror.update { _, transaction in
        transaction.bindZone("zone-1")
        transaction.merge(root)
        transaction.write(.record(tube(4)), parents: [root.id], author: alice, at: epoch)
        transaction.markRead(segment: "devices/b/1.jsonl")
        transaction.recordTransfer(.import, at: epoch)
      }
      let before = mirror.content.changesForCompaction
      let reopened = try openMirror(folder)
      #expect(reopened.content.changesForCompaction == before)
      #expect(reopened.storeID == mirror.storeID)
      #expect(reopened.content.zone == "zone-1" && reopened.content.lastImport == epoch)
      try reopened.file.compact()
      #expect(try openMirror(folder).content.changesForCompaction == before)
    }
  }

  @Test func aVersionWhoseHashDoesNotMatchItsContentIsRefused() throws {
    var json = version(tube(5)).json
    json["hash"] = .string(tube(6).snapshotHash.hex)
    #expect {
      try MirrorVersion(json: json, schemas: InventorySchemas.registry)
    } throws: { error in
      "\(error)".contains("does not match its content")
    }
  }
}
