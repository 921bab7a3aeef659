import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A focus on record keys (``LocalStore/Focus/keys``), what a sync pass over the keys changed
/// since the last sync opens: for those keys the content holds exactly what a whole open
/// holds (rows, tombstones, checkpoints and their binding, open conflicts, diagnostics),
/// whatever the file holds after the index, and saves through it write what a whole store
/// would, keeping the index right.
@Suite struct SyncFocusTests {
  /// Every save that read the whole store writes the index, and a focused save rewrites it.
  static let eager = LocalStore.IndexPolicy(
    minimumRows: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30)
  /// The index is written once and never again (its prefix falls behind).
  static let once = LocalStore.IndexPolicy(
    minimumRows: 1, rewriteAfterBytes: 1 << 40, maximumTailBytes: 1 << 30)
  static let device = DeviceID("0d1c3b5a-0000-4000-8000-000000000001")!

  static func open(
    _ folder: URL, keys: Set<RecordKey>? = nil, policy: LocalStore.IndexPolicy = once
  ) throws -> LocalStore {
    try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path),
      create: .init(deviceID: device, deviceName: "salon-mac", time: epoch),
      focus: keys.map { LocalStore.Focus(keys: $0) }, index: policy)
  }

  static func isUsed(_ store: LocalStore) -> Bool {
    if case .used = store.openReport.index { return true }
    return false
  }

  static func key(_ number: Int) -> RecordKey {
    RecordKey(
      model: "item", id: RecordID(String(format: "3f2b8c1e-0000-4000-8000-%012lx", number))!)
  }

  static func hash(_ number: UInt64) -> SnapshotHash {
    SnapshotHash(hex: String(format: "%064llx", number))!
  }

  static func uuid(_ random: inout SeededRandom) -> String {
    String(
      format: "%08x-0000-4000-8000-%012llx", UInt32.random(in: 0...UInt32.max, using: &random),
      UInt64.random(in: 0...0xffff_ffff_ffff, using: &random))
  }

  static func record(_ key: RecordKey, _ name: String, quantity: Int64 = 5) -> Record {
    var made = item(name, quantity: quantity)
    made.id = key.id
    return made.record
  }

  /// A conflict on `key` whose sides (and so id) `number` sets.
  static func conflict(_ key: RecordKey, _ number: UInt64, _ state: ConflictState)
    -> SyncConflict
  {
    let tombstone = Tombstone(
      model: key.model, id: key.id, deletedAt: epoch, deletedHash: hash(number))
    var made = SyncConflict(
      key: key, kind: .deletedHereEditedThere,
      sides: [
        ConflictSide(origin: .local, snapshot: .tombstone(tombstone)),
        ConflictSide(origin: .mirror, snapshot: nil),
      ], noticedAt: epoch)
    made.state = state
    if state == .resolved {
      made.resolution = ConflictResolution(choice: "local", at: epoch, by: device, result: nil)
    }
    return made
  }

  /// What the store holds about `key`, as the pass reads it.
  struct KeyState: Equatable, CustomStringConvertible {
    var rows: [StoredRow]
    var tombstone: Tombstone?
    var checkpoint: Checkpoint?
    var mirror: StoreID?
    var openConflicts: [SyncConflict]
    var diagnostics: [Diagnostic?]

    init(_ content: LocalContent, _ key: RecordKey) {
      rows = content.rows(for: key).sorted { $0.row < $1.row }
      tombstone = content.tombstones[key]
      checkpoint = content.checkpoints[key]
      mirror = content.checkpointMirror
      openConflicts = content.conflicts.values.filter { $0.key == key && $0.state == .open }
        .sorted { $0.id < $1.id }
      diagnostics = [Diagnostic.Store.local, .mirror].map {
        content.diagnostics[LocalContent.DiagnosticKey(key: key, store: $0)]
      }
    }

    var description: String {
      "rows \(rows.map(\.row)) tombstone \(tombstone != nil) checkpoint \(checkpoint != nil) "
        + "mirror \(String(describing: mirror)) open \(openConflicts.map(\.id.short)) "
        + "diagnostics \(diagnostics.map { $0?.rows ?? 0 })"
    }
  }

  /// One random change to what the store holds about `key`.
  static func randomChange(
    _ key: RecordKey, _ content: LocalContent, _ transaction: inout LocalTransaction,
    _ random: inout SeededRandom, step: Int
  ) throws {
    switch random.next() % 10 {
    case 0: _ = try transaction.insert(record(key, "Tube \(step)"))
    case 1:
      if let row = content.rows(for: key).first {
        try transaction.replace(row.row, with: record(key, "Edited \(step)", quantity: 2))
      } else {
        _ = try transaction.insert(record(key, "Tube \(step)"))
      }
    case 2: if let row = content.rows(for: key).last { transaction.removeRow(row.row) }
    case 3:
      transaction.putTombstone(
        Tombstone(
          model: key.model, id: key.id, deletedAt: epoch, deletedHash: hash(UInt64(step))))
    case 4: transaction.removeTombstone(key)
    case 5:
      transaction.setCheckpoint(
        key, to: Checkpoint(hash: hash(UInt64(step) + 7), isTombstone: step % 2 == 0))
    case 6: transaction.setCheckpoint(key, to: nil)
    case 7:
      // A new open conflict supersedes the open one, if any.
      for var open in content.openConflicts(for: key) {
        open.state = .superseded
        transaction.put(open)
      }
      transaction.put(conflict(key, UInt64(step) << 8, .open))
    case 8:
      for var open in content.openConflicts(for: key) {
        open.state = .resolved
        open.resolution = ConflictResolution(choice: "agreed", at: epoch, by: device, result: nil)
        transaction.put(open)
      }
    default:
      if Bool.random(using: &random) {
        let store: Diagnostic.Store = Bool.random(using: &random) ? .local : .mirror
        transaction.put(Diagnostic(key: key, store: store, rows: 2, noticedAt: epoch))
      } else {
        transaction.removeDiagnostic(key, store: .local)
      }
    }
  }

  /// A store of `count` keys, each with a random mix of rows (some duplicated), a tombstone,
  /// a checkpoint bound to a mirror, conflicts (open, resolved, superseded) and diagnostics,
  /// saved through a whole store that writes the index.
  static func makeStore(_ folder: URL, count: Int, _ random: inout SeededRandom) throws {
    _ = try open(folder)  // created: its own saves do not know the settings' line
    let store = try open(folder, policy: eager)
    let mirror = StoreID(uuid(&random))!
    try store.update("the history") { content, transaction in
      transaction.bindCheckpoints(to: mirror)
      for number in 0..<count {
        let key = key(number)
        let rows = Int.random(in: 0...2, using: &random)
        for copy in 0..<rows { _ = try transaction.insert(record(key, "Tube \(number).\(copy)")) }
        if rows == 0 || random.next() % 5 == 0 {
          transaction.putTombstone(
            Tombstone(
              model: key.model, id: key.id, deletedAt: epoch, deletedHash: hash(UInt64(number))))
        }
        if random.next() % 3 != 0 {
          transaction.setCheckpoint(
            key, to: Checkpoint(hash: hash(UInt64(number) + 1), isTombstone: rows == 0))
        }
        let states: [ConflictState] = [.superseded, .resolved, .open]
        for (offset, state) in states.enumerated() where random.next() % 3 == 0 {
          transaction.put(conflict(key, UInt64(number * 8 + offset), state))
        }
        if rows == 2 || random.next() % 6 == 0 {
          let store: Diagnostic.Store = Bool.random(using: &random) ? .local : .mirror
          transaction.put(Diagnostic(key: key, store: store, rows: 2, noticedAt: epoch))
        }
      }
    }
    // A second save: the index is written from a whole store whose lines are all known.
    try store.update("a touch") { _, transaction in
      transaction.setCheckpoint(key(0), to: Checkpoint(hash: hash(99), isTombstone: false))
    }
    #expect(FileManager.default.fileExists(atPath: store.indexPath))
  }

  /// Expects a key-focused open of `keys` to use the index and to hold, for each key, what
  /// a whole open holds.
  static func expectSameState(
    _ folder: URL, _ keys: Set<RecordKey>, _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let whole = try open(folder).content
    let focused = try open(folder, keys: keys)
    #expect(
      isUsed(focused), "\(context): \(focused.openReport.index)", sourceLocation: sourceLocation)
    for key in keys.sorted() {
      let found = KeyState(focused.content, key)
      let expected = KeyState(whole, key)
      #expect(found == expected, "\(context) \(key)", sourceLocation: sourceLocation)
    }
  }

  /// Random stores with a random tail after the index (touching every kind, sometimes
  /// binding the checkpoints to another mirror) and random saves through key-focused stores
  /// that rewrite the index: for random key sets, the focused content equals the whole
  /// open's. `STASH_SEED=<n>` replays one.
  @Test func aKeyFocusHoldsWhatAWholeOpenHoldsOfItsKeysInRandomStores() throws {
    let environment = ProcessInfo.processInfo.environment
    let seeds: [UInt64] =
      environment["STASH_SEED"].flatMap(UInt64.init).map { [$0] }
      ?? (1...5).map { _ in UInt64.random(in: 1...UInt64.max) }
    for seed in seeds {
      print("SyncFocusTests random store seed \(seed) (replay: STASH_SEED=\(seed))")
      try withTemporaryFolder { folder in
        var random = SeededRandom(seed: seed)
        let count = 40
        try Self.makeStore(folder, count: count, &random)
        let all = (0..<(count + 2)).map(Self.key)  // two keys the store never held
        func randomKeys() -> Set<RecordKey> {
          Set(
            (0..<Int.random(in: 1...6, using: &random)).map { _ in
              all.randomElement(using: &random)!
            })
        }
        for round in 0..<6 {
          try Self.expectSameState(folder, randomKeys(), "seed \(seed) round \(round) before")
          // A tail after the index, written by a whole store that leaves the index behind.
          let writer = try Self.open(folder)
          for step in 0..<8 {
            let key = all.randomElement(using: &random)!
            try writer.update("a tail change") { content, transaction in
              if random.next() % 16 == 0 {
                transaction.bindCheckpoints(to: StoreID(Self.uuid(&random))!)
              }
              try Self.randomChange(
                key, content, &transaction, &random, step: 1000 * round + step)
            }
          }
          try Self.expectSameState(folder, Set(all), "seed \(seed) round \(round) tail")
          try Self.expectSameState(folder, randomKeys(), "seed \(seed) round \(round) some")
          // A save through a key-focused store, which writes the index again from the
          // index it read and what changed since.
          let keys = randomKeys()
          let focused = try Self.open(folder, keys: keys, policy: Self.eager)
          #expect(Self.isUsed(focused))
          let wrote = try focused.update("a focused change") { content, transaction in
            for key in keys.sorted() {
              try Self.randomChange(key, content, &transaction, &random, step: 500 + round)
            }
            return !transaction.changes.isEmpty
          }
          // A save that writes nothing leaves the index as it was.
          let after = try Self.open(folder, keys: keys)
          #expect(
            !wrote || after.openReport.index == .used(tailBytes: 0),
            "seed \(seed) round \(round): \(after.openReport.index)")
          try Self.expectSameState(folder, Set(all), "seed \(seed) round \(round) rewritten")
          let problems = try Self.open(folder).content.checkInvariants()
          #expect(problems.filter { !$0.contains("duplicate diagnostic") }.isEmpty, "\(problems)")
        }
      }
    }
  }

  /// A save through a key-focused store (a checkpoint, a conflict, a tombstone removed, a
  /// row) writes what the same save on a whole store writes, and the index written after it
  /// still answers right.
  @Test func aSaveThroughAKeyFocusedStoreEqualsTheSameSaveOnAWholeStore() throws {
    try withTemporaryFolder { folder in
      try withTemporaryFolder { copy in
        var random = SeededRandom(seed: 12)
        try Self.makeStore(folder, count: 30, &random)
        // A tail after the index, so that the focused store replays some of each kind.
        let writer = try Self.open(folder)
        try writer.update("a tail") { content, transaction in
          transaction.put(Self.conflict(Self.key(3), 7777, .open))
          transaction.putTombstone(
            Tombstone(
              model: "item", id: Self.key(4).id, deletedAt: epoch, deletedHash: Self.hash(4)))
          transaction.setCheckpoint(
            Self.key(5), to: Checkpoint(hash: Self.hash(5), isTombstone: true))
        }
        for name in ["default.store", "default.store.index"] {
          try FileManager.default.copyItem(
            at: folder.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        let keys: Set<RecordKey> = [Self.key(3), Self.key(4), Self.key(5), Self.key(6)]
        func save(_ store: LocalStore) throws {
          try store.update("a sync's changes") { content, transaction in
            transaction.setCheckpoint(
              Self.key(6), to: Checkpoint(hash: Self.hash(66), isTombstone: false))
            for var open in content.openConflicts(for: Self.key(3)) {
              open.state = .superseded
              transaction.put(open)
            }
            transaction.put(Self.conflict(Self.key(3), 8888, .open))
            transaction.removeTombstone(Self.key(4))
            _ = try transaction.insert(Self.record(Self.key(4), "Back"))
            transaction.setCheckpoint(Self.key(5), to: nil)
          }
        }
        let focused = try Self.open(folder, keys: keys, policy: Self.eager)
        #expect(Self.isUsed(focused))
        #expect(!focused.content.isComplete)
        try save(focused)
        try save(Self.open(copy))  // another file: opened whole
        #expect(fingerprint(try Self.open(folder)) == fingerprint(try Self.open(copy)))
        expectInvariants(try Self.open(folder))
        let after = try Self.open(folder, keys: keys)
        #expect(after.openReport.index == .used(tailBytes: 0))
        try Self.expectSameState(folder, Set((0..<32).map(Self.key)), "after the save")
      }
    }
  }
}
