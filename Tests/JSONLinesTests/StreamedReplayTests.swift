import Foundation
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import JSONLines

/// A store opened or caught up decodes a transaction's lines while it reads them, so that a
/// transaction as large as the store (an import, a compaction) is never held as parsed lines.
@Suite struct StreamedReplayTests {
  /// The bytes of one operation's text: lines of about 700 bytes, as an inventory's are.
  static let text = String(repeating: "x", count: 640)
  /// Operations in the large transaction: several batches, so that holding them all is
  /// several times holding one batch, whatever the number of cores.
  static var count: Int { 4 * StreamedReplay<NumberContent>.batchSize }

  @Test func aLargeTransactionIsDecodedWhileItIsReadNotAfterItsCommit() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      let spans = try log.append(count: Self.count) { operation($0, Self.text) }
      let files = CountingFileSystem()
      let recorder = DecodeRecorder(files: files)
      let (store, tail) = try LogStore<NumberContent>.open(
        path: path, lock: FolderLock(folder: folder.path), context: recorder, access: .reading,
        fileSystem: files)
      #expect(tail == nil)
      #expect(store.content.numbers == Array(0..<Self.count))
      // When each line was decoded, the scan had read at most its buffer (1 MiB), one batch
      // of lines and a line past it: a replay that gathered the transaction first decodes
      // the first line only once the last one is read.
      let batchBytes = StreamedReplay<NumberContent>.batchSize * (spans[0].length + 1)
      let bound = (1 << 20) + batchBytes + 2 * (spans[0].length + 1)
      let decodes = recorder.decodes
      #expect(decodes.count == Self.count)
      let ahead = decodes.map { $0.bytesRead - Int(spans[$0.number].offset) }
      #expect(ahead.max()! <= bound, "read \(ahead.max()!) bytes ahead of a decode")
      #expect(Int(spans.last!.offset) > 2 * bound)
    }
  }

  /// A committed transaction is applied a batch at a time and each batch is freed once
  /// applied: its decoded changes are never all held beside the content they build (before,
  /// every change of a 10,000-line transaction was alive until the last was applied: 14% of
  /// the peak of `sync verify` at 10,000 items).
  @Test func aCommittedTransactionFreesEachBatchOfChangesOnceItIsApplied() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append(count: Self.count) { operation($0) }
      let (store, _) = try LogStore<TokenContent>.open(
        path: path, lock: FolderLock(folder: folder.path), context: (), access: .reading)
      #expect(store.content.applied == Self.count)
      let batch = StreamedReplay<TokenContent>.batchSize
      #expect(
        store.content.aliveAtLastApply <= batch,
        "\(store.content.aliveAtLastApply) changes alive when the last of \(Self.count) was applied"
      )
    }
  }

  @Test func aCatchUpDecodesAnotherProcesssLargeTransactionWhileItIsRead() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(-1)])
      let files = CountingFileSystem()
      let recorder = DecodeRecorder(files: files)
      let (store, _) = try LogStore<NumberContent>.open(
        path: path, lock: FolderLock(folder: folder.path), context: recorder, access: .reading,
        fileSystem: files)
      let spans = try log.append(count: Self.count) { operation($0, Self.text) }
      files.reset()
      recorder.forget()
      try store.refresh()
      #expect(store.content.numbers == [-1] + Array(0..<Self.count))
      let first = recorder.decodes.first { $0.number == 0 }!
      #expect(first.bytesRead < Int(spans.last!.offset) - Int(spans[0].offset))
    }
  }

  @Test func aTornLargeTransactionIsNeverAppliedNorRefusedForALineThatDoesNotDecode() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(-1)])
      try log.append([operation(-2)])
      let committed = try fileBytes(path)
      // The next transaction, written whole, then cut before its commit line, with a line
      // that does not decode among those handed out before the cut.
      try log.append(count: Self.count) { $0 == 5 ? ["bad": .bool(true)] : operation($0) }
      let whole = try fileBytes(path)
      try writeFile(path, Array(whole[..<(whole.count - 30)]))
      let recorder = DecodeRecorder(files: nil)
      let (store, tail) = try LogStore<NumberContent>.open(
        path: path, lock: FolderLock(folder: folder.path), context: recorder, access: .reading)
      #expect(store.content.numbers == [-1, -2])
      #expect(tail?.kind == .torn)
      #expect(tail?.offset == Int64(committed.count))
      #expect(recorder.decodes.count > StreamedReplay<NumberContent>.batchSize)
    }
  }

  @Test func aCommittedLineThatDoesNotDecodeRefusesTheStoreNamingIt() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      let bad = Self.count - 3
      let spans = try log.append(count: Self.count) {
        $0 == bad ? ["bad": .bool(true)] : operation($0)
      }
      #expect(throws: LogError.damaged(path: path, line: spans[bad].line, reason: "bad operation"))
      {
        _ = try LogStore<NumberContent>.open(
          path: path, lock: FolderLock(folder: folder.path),
          context: DecodeRecorder(files: nil), access: .reading)
      }
    }
  }
}

/// Records each decode: which operation, and how many bytes of the store had been read then.
final class DecodeRecorder: Sendable {
  let files: CountingFileSystem?
  private let state = Mutex<[(number: Int, bytesRead: Int)]>([])

  init(files: CountingFileSystem?) { self.files = files }

  var decodes: [(number: Int, bytesRead: Int)] { state.withLock { $0 } }

  func forget() { state.withLock { $0 = [] } }

  func decoded(_ number: Int) {
    let read = files?.reads(ofFileEndingWith: "a.store").bytes ?? 0
    state.withLock { $0.append((number, read)) }
  }
}

/// A store of numbers (the `n` of each operation), recording each decode.
struct NumberContent: LogContent {
  static let format = "stash.test"
  static let version = 1
  let recorder: DecodeRecorder
  var numbers: [Int] = []

  init(header: LogHeader, context: DecodeRecorder) { recorder = context }

  mutating func apply(_ change: Int) { numbers.append(change) }

  func change(from operation: JSONObject) throws(ModelError) -> Int {
    guard case .integer(let number)? = operation["n"] else { throw ModelError("bad operation") }
    recorder.decoded(Int(number))
    return Int(number)
  }

  static func operation(for change: Int) -> JSONObject { JSONLinesTests.operation(change) }

  var changesForCompaction: [Int] { numbers }

  var liveChangeCount: Int { numbers.count }
}

/// A decoded change that counts how many are alive.
final class Token: Sendable {
  static let alive = Atomic<Int>(0)

  init() { Self.alive.add(1, ordering: .relaxed) }

  deinit { Self.alive.subtract(1, ordering: .relaxed) }
}

/// A store that keeps nothing of its changes but their count, and notes how many changes were
/// alive when it applied the last one (only ``StreamedReplayTests`` opens one).
struct TokenContent: LogContent {
  static let format = "stash.test"
  static let version = 1
  var applied = 0
  var aliveAtLastApply = 0

  init(header: LogHeader, context: Void) {}

  mutating func apply(_ change: Token) {
    applied += 1
    aliveAtLastApply = Token.alive.load(ordering: .relaxed)
  }

  func change(from operation: JSONObject) throws(ModelError) -> Token { Token() }

  static func operation(for change: Token) -> JSONObject { JSONLinesTests.operation(0) }

  var changesForCompaction: [Token] { [] }

  var liveChangeCount: Int { applied }
}
