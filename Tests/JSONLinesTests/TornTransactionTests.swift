import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

/// The last transaction is whatever follows the last commit an fsync is known to have made
/// durable: the one before the last transaction in the file, since a save is only written
/// after the one before it was synchronized. Damage inside it (zeros where a page never
/// reached the disk, garbage, a bad checksum), even under a valid commit line, makes it a
/// damaged last transaction: opened at the commit before, never lost silently. Damage before
/// it is still refused.
@Suite struct TornTransactionTests {
  /// A log of two transactions ending a few bytes before a page boundary, then a third of
  /// `count` operations written after it; the bytes before and after the third.
  private func logCrossingAPage(in folder: URL, count: Int) throws -> (
    path: String, old: [UInt8], new: [UInt8]
  ) {
    let path = folder.appendingPathComponent("a.store").path
    let log = try Log.create(at: path, header: testHeader)
    try log.append([operation(1)])
    let room = 4096 - Int(log.committedEnd % 4096) - 30
    try log.append([operation(2, String(repeating: "f", count: room - 60))])
    #expect(4096 - log.committedEnd % 4096 < 100, "the log ends just before a page boundary")
    let old = try fileBytes(path)
    try log.append((3..<(3 + count)).map { operation($0) })
    return (path, old, try fileBytes(path))
  }

  /// The new bytes with the pages in `lost` (numbered in the file) as a power cut leaves
  /// pages that never reached the disk: zeros, or `garbage`.
  private func losing(
    pages lost: [Int], of new: [UInt8], after old: [UInt8], garbage: [UInt8]? = nil
  ) -> [UInt8] {
    var bytes = new
    for page in lost {
      for offset in max(page * 4096, old.count)..<min((page + 1) * 4096, new.count) {
        bytes[offset] = garbage.map { $0[offset % $0.count] } ?? 0
      }
    }
    return bytes
  }

  @Test func aSaveWhoseFirstPageNeverReachedTheDiskOpensAtThePreviousCommit() throws {
    try withTemporaryFolder { folder in
      let (path, old, new) = try logCrossingAPage(in: folder, count: 3)
      let torn = losing(pages: [old.count / 4096], of: new, after: old)
      try writeFile(path, torn)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1], [2]])
      let report = try #require(tail)
      #expect(report.kind == .damaged)
      #expect(report.offset == Int64(old.count))
      #expect(report.line == 6)
      #expect(report.reason.hasPrefix("line 6:"), "\(report.reason)")
      #expect(report.description.contains("next save sets it aside"), "\(report)")
      #expect(try fileBytes(path) == torn, "a reader changes nothing")

      let (again, recovered, _) = try readLog(path)
      #expect(again == [[1], [2]])
      let kept = try #require(recovered?.keptAt)
      #expect(kept.hasPrefix(path + ".damaged-"))
      #expect(try fileBytes(kept) == Array(torn[old.count...]), "the torn bytes are kept")
      #expect(try fileBytes(path) == old)
      #expect(try readLog(path).tail == nil)
    }
  }

  @Test func aHoleOrGarbageInAnyPageOfALargeLastTransactionIsADamagedTail() throws {
    try withTemporaryFolder { folder in
      let (path, old, new) = try logCrossingAPage(in: folder, count: 400)
      let pages = Array((old.count / 4096)...((new.count - 1) / 4096))
      #expect(pages.count > 5)
      var random = SeededRandom(seed: 22)
      for page in pages.dropLast() {
        for garbage in [nil, random.bytes(97)] {
          try writeFile(path, losing(pages: [page], of: new, after: old, garbage: garbage))
          let (transactions, tail, _) = try readLog(path, recoverTail: false)
          #expect(transactions == [[1], [2]], "page \(page)")
          #expect(tail?.kind == .damaged, "page \(page): \(String(describing: tail))")
          #expect(tail?.offset == Int64(old.count), "page \(page)")
        }
      }
      // Losing the page of the commit leaves an uncommitted transaction, as a crash does.
      try writeFile(path, losing(pages: [pages.last!], of: new, after: old))
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1], [2]])
      #expect(tail != nil)
    }
  }

  @Test func theSameHoleBeforeALaterCommitIsDamageBeforeTheLastTransaction() throws {
    try withTemporaryFolder { folder in
      let (path, old, _) = try logCrossingAPage(in: folder, count: 3)
      // A transaction after it means it was synchronized: its damage is not a power cut's.
      try readLog(path).log.append([operation(6)])
      let torn = losing(pages: [old.count / 4096], of: try fileBytes(path), after: old)
      try writeFile(path, torn)
      #expect {
        try readLog(path, recoverTail: false)
      } throws: { error in
        guard case LogError.damaged(let reported, 6, _) = error else { return false }
        return reported == path
      }
      #expect(try fileBytes(path) == torn, "a refused file is not changed")
    }
  }

  @Test func aDamagedCommitLineBeforeTheLastTransactionIsRefused() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1)])
      try log.append([operation(2)])
      try log.append([operation(3)])
      var bytes = try fileBytes(path)
      let ends = lineEnds(bytes)
      bytes[ends[3] + 20] ^= 0x01  // line 5: the commit of transaction 2
      try writeFile(path, bytes)
      // Transaction 3's valid commit follows, but transaction 2 was never closed: refused.
      #expect {
        try readLog(path, recoverTail: false)
      } throws: { error in
        guard case LogError.damaged(_, 5, _) = error else { return false }
        return true
      }
    }
  }

  @Test func bytesAfterTheCommitOfADamagedTransactionMeanItWasSynchronized() throws {
    try withTemporaryFolder { folder in
      let (path, old, new) = try logCrossingAPage(in: folder, count: 3)
      let torn = losing(pages: [old.count / 4096], of: new, after: old)
      try writeFile(path, torn + Array(#"{"crc":"00000000","tx":4,"op":{"n"#.utf8))
      #expect(throws: LogError.self) { try readLog(path, recoverTail: false) }
    }
  }
}
