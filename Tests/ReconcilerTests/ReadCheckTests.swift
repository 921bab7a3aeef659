import Foundation
import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import Reconciler

/// A local row edited in the file without its hash never leaves the store, and a mirror
/// version that is not what its id says is never applied: a pass checks every row and
/// version its decisions read before it writes anything, in the first batch of checked
/// records and in every later one (a pass over many records checks them ``Plan/checkBatch``
/// at a time, while it decides them).
@Suite struct ReadCheckTests {
  /// More records than one batch holds, so that the last key is decided in a later batch.
  static let count = Plan.checkBatch + 900

  /// Appends a `put` of `record` at `row` carrying the hash of `stale` (another record): a
  /// hand edit of the file that left the old hash in place.
  private func appendStalePut(
    of record: Record, row: RowID, hash stale: SnapshotHash, to folder: URL
  ) throws {
    let (log, _) = try Log.open(
      at: folder.appendingPathComponent(LocalStore.fileName).path, format: LocalContent.format,
      supportedVersion: LocalContent.version, recoverTail: true
    ) { _ in }
    try log.append([
      [
        "put": .object([
          "row": .integer(row.rawValue), "model": .string(record.model),
          "id": .string(record.id.rawValue), "hash": .string(stale.hex),
          "fields": .object(record.fieldsJSON()),
        ])
      ]
    ])
  }

  @Test(arguments: [false, true])
  func aRowWithAStaleHashStopsAPassBeforeAnythingIsWritten(lastKey: Bool) throws {
    try withTemporaryFolder { folder in
      let rowsByKey: [(key: RecordKey, row: StoredRow)] = try {
        let stores = try TwoStores(folder)
        try stores.local.update("add") { _, transaction in
          for index in 0..<Self.count {
            try transaction.insert(tube("thing \(index)").record)
          }
        }
        return stores.local.content.rows.values.map { ($0.record.key, $0) }
          .sorted { $0.key < $1.key }
      }()
      let target = try #require(lastKey ? rowsByKey.last : rowsByKey.first).row
      var edited = try Item(record: target.record)
      edited.name = "edited in the file"
      try appendStalePut(of: edited.record, row: target.row, hash: target.hash, to: folder)

      let stores = try TwoStores(folder)  // opening does not hash every row
      let before = try stores.files()
      #expect {
        try stores.reconciler.reconcile()
      } throws: { error in
        guard case .local(.staleHash(_, let row, let key)) = error as? ReconcileError else {
          return false
        }
        return row == target.row && key == target.record.key
      }
      #expect(try stores.files() == before, "nothing is written")
      #expect(stores.mirror.content.versions.count == 0)
    }
  }

  /// Appends `version` to the mirror's file with the hash of another snapshot in place of
  /// its own: a version line edited or damaged in a way its checksum does not show (the
  /// mirror's open does not hash its own lines again).
  private func appendVersion(
    _ version: MirrorVersion, claiming stale: SnapshotHash, to folder: URL
  ) throws {
    let (log, _) = try Log.open(
      at: folder.appendingPathComponent(MirrorStore.fileName).path,
      format: MirrorContent.format, supportedVersion: MirrorContent.version,
      recoverTail: true
    ) { _ in }
    var operation = MirrorContent.operation(for: .addVersion(version, pending: false))
    guard case .object(var body)? = operation["version"] else {
      Issue.record("no version in \(operation)")
      return
    }
    body["hash"] = .string(stale.hex)
    operation["version"] = .object(body)
    try log.append([operation])
  }

  @Test(arguments: [false, true])
  func aMirrorVersionThatIsNotWhatItSaysStopsAPass(lastKey: Bool) throws {
    try withTemporaryFolder { folder in
      let versions = (0..<Self.count).map { index in
        MirrorVersion(
          snapshot: .record(tube("thing \(index)").record), parents: [], generation: 1,
          author: otherDevice, authoredAt: epoch)
      }.sorted { $0.key < $1.key }
      let target = try #require(lastKey ? versions.last : versions.first)
      try {
        let stores = try TwoStores(folder)
        try stores.mirror.update { _, transaction in
          for version in versions where version.key != target.key { transaction.merge(version) }
        }
      }()
      try appendVersion(target, claiming: versions[1].hash, to: folder)

      let stores = try TwoStores(folder)
      #expect(stores.mirror.content.versionCount == Self.count)
      let before = try stores.files()
      #expect {
        try stores.reconciler.reconcile()
      } throws: { error in
        guard case .untrusted(let untrusted) = error as? ReconcileError else { return false }
        return untrusted.key == target.key
      }
      #expect(try stores.files() == before, "nothing is written")
      #expect(stores.local.content.rows.count == 0)
    }
  }
}
