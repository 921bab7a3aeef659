import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// The behaviours seed 002 and DESIGN.md name, one test each.
@Suite struct ReconcilerBehaviourTests {
  @Test func localOnlyAndCloudOnlyInsertsCopyByRecordIDIncludingQuantity() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let here = try stores.addLocally(tube("Here", quantity: 3))
      let there = tube("There", quantity: 8)
      try stores.editInMirror(.record(there.record))
      let report = try stores.pass()
      #expect(report.rows[.localOnlyInsert] == 1 && report.rows[.cloudOnlyInsert] == 1)
      #expect(stores.mirrorItem(here.id)?.quantity == 3)
      #expect(stores.localItem(there.id)?.quantity == 8)
      let files = try stores.files()
      #expect(try stores.pass().changedAnything == false)
      #expect(try stores.files() == files)
    }
  }

  @Test func anOlderUpdatedAtStillWinsWhenItIsTheOnlySideThatChanged() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let original = try stores.addLocally(tube(quantity: 5))
      try stores.pass()
      var older = original
      older.quantity = 4
      older.updatedAt = Timestamp(secondsSince1970: 1_000)!  // long before the local row's
      try stores.editInMirror(.record(older.record))
      let report = try stores.pass()
      #expect(report.rows[.applyMirrorEdit] == 1)
      #expect(stores.localItem(original.id)?.quantity == 4)
      #expect(stores.localItem(original.id)?.updatedAt == older.updatedAt)
      #expect(stores.openConflicts.isEmpty)
    }
  }

  @Test func divergentPhotosAreBothKeptInOneConflictSeenByEveryDevice() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let blobs = BlobStore(deviceFolder: folder.path)
      let original = try stores.addLocally(tube(photo: try blobs.store([1, 2, 3])))
      try stores.pass()
      let localPhoto = try blobs.store(Array(repeating: 9, count: 5000))
      let mirrorPhoto = try blobs.store(Array(repeating: 7, count: 6000))
      let mine = try stores.editLocally(original.id) { $0.photo = localPhoto }
      var theirs = original
      theirs.photo = mirrorPhoto
      theirs.updatedAt = stores.tick()
      try stores.editInMirror(.record(theirs.record))
      let report = try stores.pass()
      #expect(report.rows[.bothEdited] == 1 && report.newConflicts.count == 1)
      #expect(stores.localItem(original.id) == mine, "the local store keeps its own version")
      // The local side is written into the graph first, so every device sees both leaves.
      let key = RecordKey(model: "item", id: original.id)
      let leaves = stores.mirror.content.side(for: key).leaves.compactMap(\.snapshot.record)
      #expect(Set(leaves) == [mine.record, theirs.record])
      let conflict = try #require(stores.openConflicts.first)
      let photos = conflict.sides.compactMap { $0.snapshot?.record?[field: "photo"] }
      #expect(Set(photos) == [.blob(localPhoto), .blob(mirrorPhoto)])
      #expect(blobs.check(localPhoto) == .present && blobs.check(mirrorPhoto) == .present)
      let files = try stores.files()
      #expect(try stores.pass().changedAnything == false)
      #expect(try stores.files() == files, "a second pass changes nothing, byte for byte")
    }
  }

  @Test func aDeleteAfterAgreementAndANameEditElsewhereKeepTheEditedName() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let original = try stores.addLocally(tube())
      try stores.pass()
      try stores.deleteLocally(original.id)
      var renamed = original
      renamed.name = "Koleston 7/1 (new box)"
      renamed.updatedAt = stores.tick()
      try stores.editInMirror(.record(renamed.record))
      let report = try stores.pass()
      #expect(report.rows[.deletedHereEditedThere] == 1)
      #expect(stores.mirrorItem(original.id)?.name == "Koleston 7/1 (new box)")
      #expect(stores.openConflicts.map(\.kind) == [.deletedHereEditedThere])
      try stores.pass()
      #expect(stores.localItem(original.id) == nil, "a second pass does not restore the row")
      #expect(stores.mirrorItem(original.id)?.name == "Koleston 7/1 (new box)")
    }
  }

  @Test func aDeleteCrossesWhenTheOtherSideDidNotEditAndDoesNotComeBack() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let gone = try stores.addLocally(tube("Gone"))
      let arriving = try stores.addLocally(tube("Arriving"))
      try stores.pass()
      try stores.deleteLocally(gone.id)
      try stores.editInMirror(.tombstone(Tombstone(deleting: arriving.record, at: stores.tick())))
      let report = try stores.pass()
      #expect(report.rows[.deletionToMirror] == 1 && report.rows[.deletionToLocal] == 1)
      #expect(stores.mirror.content.side(for: gone.record.key).winner?.snapshot.isTombstone == true)
      #expect(stores.localItem(arriving.id) == nil)
      #expect(stores.local.content.tombstones[arriving.record.key] != nil)
      for _ in 0..<2 { try stores.pass() }
      #expect(stores.localItem(gone.id) == nil && stores.localItem(arriving.id) == nil)
      #expect(stores.openConflicts.isEmpty)
    }
  }

  @Test func absenceWithoutATombstoneNeitherDeletesNorRestores() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let vanished = try stores.addLocally(tube("Vanished here"))
      try stores.pass()
      try stores.dropLocally(vanished.id)
      let report = try stores.pass()
      #expect(report.rows[.missingHere] == 1)
      #expect(stores.localItem(vanished.id) == nil, "absence is not restored")
      #expect(stores.mirrorItem(vanished.id) != nil, "and does not delete the other side")
      let conflict = try #require(stores.openConflicts.first)
      #expect(conflict.kind == .missingHere)
      #expect(conflict.sides.contains { $0.origin == .local && $0.snapshot == nil })
      try stores.pass()
      #expect(stores.localItem(vanished.id) == nil && stores.mirrorItem(vanished.id) != nil)
    }
  }

  @Test func aRowMissingFromTheMirrorIsNotDeletedHere() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let kept = try stores.addLocally(tube("Kept"))
      // A checkpoint says both once agreed, but this mirror has no such record (the mirror
      // file was replaced by one that lacks it but kept the same identity).
      try stores.local.update("a stale checkpoint", origin: .reconciler) { _, transaction in
        transaction.bindCheckpoints(to: stores.mirror.storeID)
        transaction.setCheckpoint(kept.record.key, to: .record(kept.record.snapshotHash))
      }
      let report = try stores.pass()
      #expect(report.rows[.missingInMirror] == 1)
      #expect(stores.localItem(kept.id) == kept)
      #expect(stores.mirrorItem(kept.id) == nil, "nothing is copied on absence")
    }
  }

  @Test func notificationIdentifiersAreNeitherASyncedEditNorOverwritten() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let place = Location(name: "Salon", createdAt: epoch)
      let reminder = Reminder(
        locationID: place.id, message: "Count", notificationIdentifier: "here-1", createdAt: epoch)
      try stores.local.update("add") { _, transaction in try transaction.insert(reminder.record) }
      try stores.pass()
      #expect(
        stores.mirror.content.side(for: reminder.record.key).winner?.snapshot.record?[
          field: "notificationIdentifier"] == FieldValue.none)
      // A new notification id here is not an edit.
      try stores.local.update("reschedule") { content, transaction in
        let row = content.row(for: reminder.record.key)!
        var changed = try Reminder(record: row.record)
        changed.notificationIdentifier = "here-2"
        try transaction.replace(row.row, with: changed.record)
      }
      #expect(try stores.pass().changedAnything == false)
      // An edit from elsewhere keeps this device's notification id.
      var edited = reminder
      edited.message = "Count the tubes"
      edited.notificationIdentifier = "there-9"
      edited.updatedAt = stores.tick()
      try stores.editInMirror(.record(edited.record.copied(keepingDeviceLocalFieldsOf: nil)))
      try stores.pass()
      let row = try #require(stores.local.content.row(for: reminder.record.key))
      let now = try Reminder(record: row.record)
      #expect(now.message == "Count the tubes" && now.notificationIdentifier == "here-2")
    }
  }

  @Test func duplicateRowsAreReportedAndLeftAlone() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let first = try stores.addLocally(tube())
      var twin = first
      twin.quantity = 1
      try stores.addLocally(twin)
      let before = try stores.files()
      let report = try stores.pass()
      #expect(report.rows[.duplicate] == 1 && report.copiedToMirror == 0)
      #expect(stores.mirrorItem(first.id) == nil)
      let diagnostic = try #require(stores.local.content.diagnostics.values.first)
      #expect(diagnostic.rows == 2 && diagnostic.key == first.record.key)
      #expect(try stores.files()[1] == before[1], "nothing is written to the mirror")
      #expect(
        stores.local.content.rows(for: first.record.key).map(\.record) == [
          first.record, twin.record,
        ])
      let files = try stores.files()
      try stores.pass()
      #expect(try stores.files() == files)
    }
  }

  @Test func aThrownPassLeavesBothStoresAsTheyWereAndALaterPassCopies() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let stores = try TwoStores(folder, fileSystem: files)
      let item = try stores.addLocally(tube())
      let before = try stores.files()
      // The mirror's write goes through; the local store's (the second write) fails.
      files.inject(.write(keepingBytes: 0), afterSkipping: 1)
      #expect(throws: (any Error).self) { try stores.pass() }
      #expect(files.allFaultsFired)
      #expect(try stores.files() == before, "both stores exactly as they were")
      #expect(stores.localItem(item.id) == item, "the local row stays")
      #expect(stores.mirrorItem(item.id) == nil)
      let report = try stores.pass()
      #expect(report.rows[.localOnlyInsert] == 1)
      #expect(stores.mirrorItem(item.id) == item)
    }
  }

  @Test func aNewMirrorStartsWithoutCheckpointsAndReuploads() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let item = try stores.addLocally(tube())
      try stores.pass()
      // A sync reset: the mirror file is replaced by a new, empty one.
      try FileManager.default.removeItem(atPath: stores.mirror.path)
      let fresh = try TwoStores(folder)
      let report = try fresh.pass()
      #expect(report.reboundCheckpoints)
      #expect(report.rows[.localOnlyInsert] == 1, "re-uploaded, not treated as absent")
      #expect(fresh.mirrorItem(item.id) == item)
    }
  }
}
