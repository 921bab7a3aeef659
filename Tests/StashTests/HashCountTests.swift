import Foundation
import MirrorStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A model of this suite alone, so that the hash census counts only what these tests hash.
struct CountedThing: CodableRecord, Equatable {
  static let model = "hash-census-thing"
  static let declaration = RecordDeclaration(changeTime: "updatedAt")
  var id: RecordID
  var name: String
  var note: String?
  var updatedAt: Date
}

/// The shape of ``CountedThing`` under a model of its own, for suites that count nothing:
/// what they hash and parse while ``HashCountTests`` runs beside them is never counted there.
struct UncountedThing: CodableRecord, Equatable {
  static let model = "uncounted-thing"
  static let declaration = CountedThing.declaration
  var id: RecordID
  var name: String
  var note: String?
  var updatedAt: Date
}

/// How many times a first sync and a second device's import hash each record (issue 26,
/// item 5). A snapshot hash is the canonical encoding and a SHA-256 of every record: at
/// 100,000 items the redundant ones were a large part of these syncs' CPU time. Each record
/// is hashed where its bytes come from disk or another device (its row when the pass reads
/// it, its version when a segment is read) and never again for the same bytes in one run.
@Suite(.serialized) struct HashCountTests {
  static let count = 1200

  /// `count` records saved on device "a" of a pair sharing one cloud folder.
  func pairWithRecords(_ root: URL) throws -> CodablePair {
    let pair = try CodablePair(root, schemas: [CountedThing.schema])
    let a = try pair.open("a")
    let when = Date(timeIntervalSince1970: 1_764_441_600)
    try a.write { tx in
      for index in 0..<Self.count {
        let id = RecordID(String(format: "00000000-0000-4000-8000-%012d", index))!
        try tx.save(
          CountedThing(
            id: id, name: "thing \(index)", note: index % 3 == 0 ? nil : "note \(index)",
            updatedAt: when))
      }
    }
    return pair
  }

  @Test func aFirstSyncHashesEachRecordOnce() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      let (report, hashes) = try hashCensus.counting(CountedThing.model) {
        try pair.open("a").sync()
      }
      #expect(report.versionsExported == Self.count)
      // Its row is checked against its stored hash (it was read from disk); the mirror's new
      // version and the export take that hash instead of computing it again.
      #expect(hashes == Self.count, "\(hashes) hashes for \(Self.count) records")
    }
  }

  @Test func aSecondDevicesImportHashesEachRecordOnce() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      _ = try pair.open("a").sync()
      let (report, hashes) = try hashCensus.counting(CountedThing.model) {
        try pair.open("b").sync()
      }
      #expect(report.appliedLocally == Self.count)
      #expect(try pair.open("b").all(CountedThing.self).count == Self.count)
      // Each version is checked against its hash when its segment is read; the pass and the
      // local store's new row take that hash.
      #expect(hashes == Self.count, "\(hashes) hashes for \(Self.count) records")
    }
  }

  /// A version's lines (the mirror's and the segment's) are written straight from the
  /// version, never through a JSON tree: a first sync built two trees per record, a second
  /// device's import one.
  @Test func aFirstSyncAndAnImportBuildNoVersionTree() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      let (first, firstTrees) = try versionTreeCensus.counting(CountedThing.model) {
        try pair.open("a").sync()
      }
      #expect(first.versionsExported == Self.count)
      #expect(firstTrees == 0, "\(firstTrees) version trees for \(Self.count) records")
      let (second, secondTrees) = try versionTreeCensus.counting(CountedThing.model) {
        try pair.open("b").sync()
      }
      #expect(second.appliedLocally == Self.count)
      #expect(secondTrees == 0, "\(secondTrees) version trees for \(Self.count) records")
    }
  }

  /// A version's id is derived from its snapshot's hash and its parents (a SHA-256) once:
  /// the reconciler's version graph derives it, and the mirror's write takes it from there.
  /// A first sync derived every id twice.
  @Test func aFirstSyncDerivesEachVersionIDOnce() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      let (first, derived) = try derivationCensus.counting(CountedThing.model) {
        try pair.open("a").sync()
      }
      #expect(first.versionsExported == Self.count)
      #expect(derived == 0, "the mirror's write derived \(derived) ids for \(Self.count) records")
    }
  }

  /// An arriving record is checked against its model when its segment is read and when the
  /// local store saves it (every save checks what it writes); the pass's check of the
  /// versions its decisions read no longer checks it a third time.
  @Test func thePassDoesNotCheckAnArrivingRecordAgainstItsModelAgain() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      _ = try pair.open("a").sync()
      let (report, checks) = try validationCensus.counting(CountedThing.model) {
        try pair.open("b").sync()
      }
      #expect(report.appliedLocally == Self.count)
      #expect(checks == 2 * Self.count, "\(checks) checks for \(Self.count) records")
    }
  }

  /// The version lines (the segment's and the mirror's) and the local store's row and
  /// checkpoint lines are read straight from their bytes (issue 26, item 5): neither a first
  /// sync nor a second device's import parses a JSON tree for any of them.
  @Test func aFirstSyncAndAnImportParseNoLineTree() throws {
    try withTemporaryFolder { root in
      let pair = try pairWithRecords(root)
      let (first, firstTrees) = try lineTreeCensus.counting(CountedThing.model) {
        try pair.open("a").sync()
      }
      #expect(first.versionsExported == Self.count)
      #expect(firstTrees == 0, "\(firstTrees) line trees for \(Self.count) records")
      let (second, secondTrees) = try lineTreeCensus.counting(CountedThing.model) {
        try pair.open("b").sync()
      }
      #expect(second.appliedLocally == Self.count)
      #expect(secondTrees == 0, "\(secondTrees) line trees for \(Self.count) records")
      // Reopening both devices reads every line again, still without a tree.
      let (_, reopenTrees) = try lineTreeCensus.counting(CountedThing.model) {
        _ = try pair.open("a").sync()
        _ = try pair.open("b").sync()
      }
      #expect(reopenTrees == 0, "\(reopenTrees) line trees for \(Self.count) records")
    }
  }
}
