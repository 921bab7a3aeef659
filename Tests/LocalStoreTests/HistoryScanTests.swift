import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The history section of a store's first index (issue 26, item 5): the live rows' current
/// lines, which the store read and checked (or wrote) just before, are not decoded again by
/// the scan that finds every record's lines; the others (earlier puts, removals, tombstones)
/// are, and the section lists the same lines either way.
@Suite struct HistoryScanTests {
  static func open(_ folder: URL, _ index: LocalStore.IndexPolicy, _ focus: LocalStore.Focus? = nil)
    throws -> LocalStore
  {
    try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path),
      create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
      focus: focus, index: index)
  }

  /// Checks that the index's history section lists, for the items numbered `numbers`, what a
  /// search of the whole file finds: a store opened through it gives each item's history as
  /// one read whole does.
  static func expectSectionListsWhatASearchFinds(
    in folder: URL, of numbers: [Int], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let keys = numbers.map(SyncFocusTests.key)
    let focused = try open(folder, never, LocalStore.Focus(keys: Set(keys)))
    #expect(SyncFocusTests.isUsed(focused), sourceLocation: sourceLocation)
    let whole = try open(folder, never)
    for key in keys {
      let indexed = try focused.log(of: key).entries
      let searched = try whole.log(of: key).entries
      #expect(indexed.count == searched.count, sourceLocation: sourceLocation)
      #expect(indexed.map(\.record) == searched.map(\.record), sourceLocation: sourceLocation)
      #expect(
        indexed.map(\.tombstone) == searched.map(\.tombstone), sourceLocation: sourceLocation)
      #expect(
        indexed.map(\.sequence) == searched.map(\.sequence), sourceLocation: sourceLocation)
    }
  }

  /// No index is ever written (the store stays below its rows).
  static let never = LocalStore.IndexPolicy(minimumRows: 1 << 30)

  /// A store in `folder` with 300 items saved in one transaction, and no index.
  static func saveItems(in folder: URL) throws {
    _ = try open(folder, never)
    try open(folder, never).update("the items") { _, transaction in
      for number in 0..<300 {
        try transaction.insert(SyncFocusTests.record(SyncFocusTests.key(number), "Tube \(number)"))
      }
    }
  }

  @Test func aFirstIndexOfLiveRowsOnlyDoesNotSearchTheFile() throws {
    try withTemporaryFolder { folder in
      try Self.saveItems(in: folder)
      let files = CountingFileSystem()
      let store = try LocalStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path), create: nil, index: DeferredIndexTests.eager,
        fileSystem: files)
      let path = folder.path + "/" + LocalStore.fileName
      let size = try #require(
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
      files.reset()
      let (_, decoded) = historyCensus.counting(path) { store.maintainIndex() }
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      #expect(decoded == 0)
      // Every line the section lists is a live row's current line, known to the store: the
      // file is not searched (the search alone reads all of it), only the lines that describe
      // the prefix are read.
      let read = files.reads(ofFileEndingWith: "/" + LocalStore.fileName).bytes
      #expect(read < size, "read \(read) of \(size) bytes")
      let keys = [0, 1, 150, 299].map(SyncFocusTests.key)
      let focused = try Self.open(folder, Self.never, LocalStore.Focus(keys: Set(keys)))
      #expect(SyncFocusTests.isUsed(focused))
      let whole = try Self.open(folder, Self.never)
      for key in keys {
        let indexed = try focused.log(of: key)
        #expect(indexed.entries.count == 1)
        #expect(indexed.entries.map(\.record) == (try whole.log(of: key)).entries.map(\.record))
      }
    }
  }

  @Test func aFirstIndexOfAStoreReadWholeNeitherSearchesNorDecodes() throws {
    try withTemporaryFolder { folder in
      try Self.saveItems(in: folder)
      let writer = try Self.open(folder, Self.never)
      // 50 rows edited (their first put lines are no longer current), 10 deleted (a
      // tombstone and a removal each, and their put lines no longer current).
      try writer.update("edits and deletions") { content, transaction in
        for number in 0..<50 {
          let stored = try #require(content.rows(for: SyncFocusTests.key(number)).first)
          try transaction.replace(
            stored.row, with: SyncFocusTests.record(SyncFocusTests.key(number), "Edited \(number)"))
        }
        for number in 100..<110 {
          let stored = try #require(content.rows(for: SyncFocusTests.key(number)).first)
          transaction.delete(stored, at: epoch)
        }
      }
      #expect(!FileManager.default.fileExists(atPath: writer.indexPath))
      let store = try Self.open(folder, DeferredIndexTests.eager)
      let path = folder.path + "/" + LocalStore.fileName
      let (decoded, scans) = historyCensus.counting(path + " scans") {
        historyCensus.counting(path) { store.maintainIndex() }.count
      }
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      // The 290 live rows' lines, 50 earlier puts, 10 puts of deleted rows, 10 tombstones
      // and 10 removals were all read by the open, which noted each (370 lines decoded
      // before stop 37, 80 before stop 38).
      #expect(scans == 0)
      #expect(decoded == 0)
      try Self.expectSectionListsWhatASearchFinds(in: folder, of: [0, 1, 49, 50, 100, 109, 299])
    }
  }

  /// An index written again after lines that hold no put (a first sync appends a checkpoint
  /// for every record) carries the history section forward without the table of the live
  /// rows' lines, which only a put needs, and without searching those lines when the index
  /// it carries is the one this store wrote; after a put the table is built, and the put not
  /// decoded.
  @Test func theKnownLinesAreTabledOnlyWhenAPutFollowsTheIndex() throws {
    try withTemporaryFolder { folder in
      try Self.saveItems(in: folder)
      let store = try Self.open(folder, DeferredIndexTests.eager)
      store.maintainIndex()
      #expect(FileManager.default.fileExists(atPath: store.indexPath))
      let path = folder.path + "/" + LocalStore.fileName
      let (_, scans) = try historyCensus.counting(path + " scans") {
        let (_, tables) = try knownPutsCensus.counting(path + " table") {
          let (_, made) = try knownPutsCensus.counting(path) {
            try store.update("the checkpoints") { content, transaction in
              for number in 0..<300 {
                let key = SyncFocusTests.key(number)
                let row = content.rows(for: key)[0]
                transaction.setCheckpoint(key, to: Checkpoint(hash: row.hash, isTombstone: false))
              }
            }
            store.maintainIndex()
          }
          #expect(made >= 1, "the index was not written again")
        }
        #expect(tables == 0)
      }
      // Nor are the checkpoint lines searched: the index this store wrote lists every line
      // the section needs, and none was applied since.
      #expect(scans == 0)
      let (_, putTables) = try knownPutsCensus.counting(path + " table") {
        let (_, decoded) = try historyCensus.counting(path) {
          try store.update("an edit") { content, transaction in
            let key = SyncFocusTests.key(7)
            try transaction.replace(
              content.rows(for: key)[0].row, with: SyncFocusTests.record(key, "Edited"))
          }
          store.maintainIndex()
        }
        // The new put is the row's current line (known, not decoded); its earlier put is
        // before the index's prefix, carried in the section.
        #expect(decoded == 0)
      }
      #expect(putTables == 1)
    }
  }

  /// A process that opened the store whole and appended only checkpoints (a first sync, after
  /// the index another process wrote: the CSV import's) carries the section without searching
  /// the lines it appended: the store's noted lines prove no line the section lists is after
  /// the index's prefix. Searching a million records' checkpoints read 276 MB again (1% of a
  /// first sync's samples).
  @Test func checkpointsAfterAnotherProcesssIndexAreNotSearched() throws {
    try withTemporaryFolder { folder in
      try Self.saveItems(in: folder)
      let earlier = try Self.open(folder, DeferredIndexTests.eager)
      // Earlier lines the section lists: an edit and a deletion.
      try earlier.update("an edit and a deletion") { content, transaction in
        let edited = try #require(content.rows(for: SyncFocusTests.key(3)).first)
        try transaction.replace(
          edited.row, with: SyncFocusTests.record(SyncFocusTests.key(3), "Edited"))
        transaction.delete(try #require(content.rows(for: SyncFocusTests.key(4)).first), at: epoch)
      }
      earlier.maintainIndex()
      #expect(FileManager.default.fileExists(atPath: earlier.indexPath))

      let store = try Self.open(folder, DeferredIndexTests.eager)  // another process
      let path = folder.path + "/" + LocalStore.fileName
      let (_, scans) = try historyCensus.counting(path + " scans") {
        try store.update("the checkpoints") { content, transaction in
          for number in 0..<300 {
            let key = SyncFocusTests.key(number)
            guard let row = content.rows(for: key).first else { continue }
            transaction.setCheckpoint(key, to: Checkpoint(hash: row.hash, isTombstone: false))
          }
        }
        store.maintainIndex()
      }
      #expect(scans == 0)
      try Self.expectSectionListsWhatASearchFinds(in: folder, of: [0, 3, 4, 299])

      // A put after the index's prefix is still found: the section is searched then.
      let later = try Self.open(folder, DeferredIndexTests.eager)
      let (_, searched) = try historyCensus.counting(path + " scans") {
        try later.update("another edit") { content, transaction in
          let edited = try #require(content.rows(for: SyncFocusTests.key(5)).first)
          try transaction.replace(
            edited.row, with: SyncFocusTests.record(SyncFocusTests.key(5), "Edited again"))
        }
        later.maintainIndex()
      }
      #expect(searched == 1)
      let key = SyncFocusTests.key(5)
      let refocused = try Self.open(folder, Self.never, LocalStore.Focus(keys: [key]))
      #expect(try refocused.log(of: key).entries.count == 2)
    }
  }
}
