import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Testing

@Suite struct LocalStoreRoundTripTests {
  @Test func everyKindOfContentSurvivesCloseAndReopenWithIdenticalHashes() throws {
    try withTemporaryFolder { folder in
      let deviceID = DeviceID.make()
      let photo = BlobRef(of: Array(repeating: 7, count: 1000))
      let store = try openStore(folder, deviceID: deviceID)
      let location = Location(
        name: "Basement", latitude: 44.4, longitude: 26.1, radius: 30, createdAt: epoch)
      let tube = item("Koleston 7/1", photo: photo)
      let reminder = Reminder(
        locationID: location.id, itemID: tube.id, message: "Count the tubes",
        notificationIdentifier: "local-notification-1", createdAt: epoch)
      try store.insert(location.record)
      try store.insert(tube.record)
      try store.insert(reminder.record)
      let gone = item("Old bleach")
      try store.insert(gone.record)
      let mirrorID = StoreID.make()
      var edited = tube
      edited.name = "Koleston 7/1 (edited)"
      try store.update("everything else") { content, transaction in
        transaction.delete(content.row(for: gone.record.key)!, at: epoch)
        transaction.bindCheckpoints(to: mirrorID)
        transaction.setCheckpoint(tube.record.key, to: .record(tube.record.snapshotHash))
        transaction.setCheckpoint(
          gone.record.key,
          to: .tombstone(SnapshotHash(of: Tombstone(deleting: gone.record, at: epoch))))
        transaction.put(
          SyncConflict(
            key: tube.record.key, kind: .bothEdited,
            sides: [
              ConflictSide(origin: .local, snapshot: .record(tube.record)),
              ConflictSide(origin: .mirror, snapshot: .record(edited.record), author: .make()),
            ], noticedAt: epoch))
        transaction.put(
          Diagnostic(key: location.record.key, store: .mirror, rows: 2, noticedAt: epoch))
        var settings = content.settings
        settings.entitlement = .yearlySubscription
        settings.cloudFolder = "/shared/stash"
        transaction.setSettings(settings)
      }
      expectInvariants(store)
      let before = fingerprint(store)
      let hashes = store.content.rows.values.map(\.hash).sorted()

      let reopened = try openStore(folder)
      expectInvariants(reopened)
      #expect(fingerprint(reopened) == before)
      #expect(reopened.content.rows.values.map(\.record.snapshotHash).sorted() == hashes)
      #expect(reopened.deviceID == deviceID)
      #expect(reopened.content.settings.name == "salon-mac")
      #expect(reopened.content.settings.entitlement == .yearlySubscription)
      #expect(reopened.content.checkpointMirror == mirrorID)
      let conflict = try #require(reopened.content.openConflicts.first)
      #expect(
        conflict.sides.compactMap { $0.snapshot?.record?[field: "photo"] } == [
          .blob(photo), .blob(photo),
        ])
      let storedReminder = try Reminder(
        record: try #require(reopened.row(reminder.record.key)).record)
      #expect(storedReminder.notificationIdentifier == "local-notification-1")
      #expect(reopened.openReport.tail == nil && !reopened.openReport.created)

      try reopened.compact()
      #expect(
        fingerprint(try openStore(folder)) == before, "compaction keeps exactly the live state")
    }
  }

  @Test func twoHandlesOnOneFolderSeeEachOthersSaves() throws {
    try withTemporaryFolder { folder in
      let first = try openStore(folder)
      let second = try openStore(folder)
      let tube = item("Koleston 7/1", quantity: 10)
      try first.insert(tube.record)
      for store in [second, first, second] {
        try store.update("a consume") { content, transaction in
          let row = content.row(for: tube.record.key)!
          var current = try Item(record: row.record)
          current.quantity -= 1
          try transaction.replace(row.row, with: current.record)
        }
      }
      try first.refresh()
      #expect(try Item(record: first.row(tube.record.key)!.record).quantity == 7)
      expectInvariants(first)
      expectInvariants(second)
    }
  }

  @Test func saveObserversHearWhoSavedAndWhichKeys() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      let heard = LockedBox<[LocalStore.SaveNotice]>([])
      store.observeSaves { notice in heard.withLock { $0.append(notice) } }
      let tube = item("Koleston")
      try store.insert(tube.record)
      try store.update("a checkpoint", origin: .reconciler) { _, transaction in
        transaction.bindCheckpoints(to: .make())
        transaction.setCheckpoint(tube.record.key, to: .record(tube.record.snapshotHash))
      }
      #expect(heard.withLock { $0 } == [.init(origin: .user, keys: [tube.record.key])])
    }
  }

  @Test func danglingReferencesAreReportedNotFollowed() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      let shelf = Location(name: "Shelf", createdAt: epoch)
      var tube = item("Koleston")
      tube.locationID = shelf.id
      let elsewhere = Reminder(locationID: .make(), message: "Not here yet", createdAt: epoch)
      try store.insert(shelf.record)
      try store.insert(tube.record)
      try store.insert(elsewhere.record)
      #expect(store.content.danglingReferences().isEmpty == false)
      #expect(store.content.danglingReferences().map(\.from) == [elsewhere.record.key])
      try store.update("the delete") { content, transaction in
        transaction.delete(content.row(for: shelf.record.key)!, at: epoch)
      }
      let dangling = store.content.danglingReferences()
      #expect(dangling.count == 2)
      #expect(dangling.first { $0.from == tube.record.key }?.targetDeleted == true)
      #expect(dangling.first { $0.from == elsewhere.record.key }?.targetDeleted == false)
      expectInvariants(store)
    }
  }
}
