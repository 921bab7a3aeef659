import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

@Suite struct LogRecoveryTests {
  /// A log with three transactions; returns its path and bytes, and the end of each commit.
  private func threeTransactions(in folder: URL) throws -> (
    path: String, bytes: [UInt8], ends: [Int]
  ) {
    let path = folder.appendingPathComponent("a.store").path
    let log = try Log.create(at: path, header: testHeader)
    var ends = [Int(log.committedEnd)]
    try log.append([operation(1), operation(2)])
    ends.append(Int(log.committedEnd))
    try log.append([operation(3, "ünïcode 🧴"), operation(4), operation(5)])
    ends.append(Int(log.committedEnd))
    try log.append([operation(6)])
    ends.append(Int(log.committedEnd))
    return (path, try fileBytes(path), ends)
  }

  @Test func truncatingAtEveryByteOfTheLastTransactionOpensThePreviousCommit() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      let previous = ends[2]
      for cut in previous..<bytes.count {
        try writeFile(path, Array(bytes[0..<cut]))
        let (transactions, tail, _) = try readLog(path)
        #expect(transactions == [[1, 2], [3, 4, 5]], "cut at \(cut)")
        if cut == previous {
          #expect(tail == nil)
        } else {
          let report = try #require(tail, "cut at \(cut)")
          #expect(report.offset == Int64(previous))
          #expect(report.length == Int64(cut - previous))
          let kept = try fileBytes(try #require(report.keptAt))
          #expect(kept == Array(bytes[previous..<cut]), "the dropped bytes are kept aside")
          try FileManager.default.removeItem(atPath: report.keptAt!)
        }
        #expect(try fileBytes(path).count == previous, "the torn tail is cut from the file")
        #expect(try readLog(path).tail == nil, "a second open finds nothing to drop")
      }
    }
  }

  @Test func withoutRecoveryATornTailIsIgnoredAndLeftInPlace() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      try writeFile(path, Array(bytes[0..<(ends[3] - 5)]))
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1, 2], [3, 4, 5]])
      #expect(tail?.keptAt == nil)
      #expect(try fileBytes(path).count == ends[3] - 5)
    }
  }

  @Test func flippingAnyByteOfACommittedLineIsDetected() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      var random = SeededRandom(seed: 20_261_129)
      let lines = lineEnds(bytes)
      for position in 0..<bytes.count {
        var damaged = bytes
        damaged[position] ^= UInt8.random(in: 1...255, using: &random)
        try writeFile(path, damaged)
        let lineNumber = lines.firstIndex { position < $0 }! + 1
        do {
          let (transactions, tail, _) = try readLog(path)
          // Only damage to the last transaction can read as a torn tail: it is then dropped,
          // kept aside and reported, never read as if nothing happened.
          #expect(position >= ends[2], "byte \(position) (seed \(random.seed))")
          #expect(transactions == [[1, 2], [3, 4, 5]], "byte \(position)")
          #expect(tail != nil, "byte \(position)")
        } catch let LogError.damaged(_, line, _) {
          #expect(line <= lineNumber, "byte \(position): reported line \(line)")
          #expect(position < ends[3], "byte \(position)")
        }
        try? removeSideFiles(in: folder)
      }
    }
  }

  @Test func damageBeforeTheLastCommitIsRefusedNamingTheLine() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, _) = try threeTransactions(in: folder)
      let lines = lineEnds(bytes)
      var damaged = bytes
      damaged[lines[2] + 30] ^= 0x20  // inside line 4, an operation of transaction 2
      try writeFile(path, damaged)
      #expect {
        try readLog(path)
      } throws: { error in
        guard case LogError.damaged(let reported, 4, let reason) = error else { return false }
        return reported == path && reason.contains("checksum")
      }
      #expect(try fileBytes(path) == damaged, "a refused file is not changed")
    }
  }

  @Test func anUncommittedTransactionNeverAppears() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1)])
      let committed = try fileBytes(path)
      // Transaction 2 written by the same code, then its commit line removed.
      try log.append([operation(2), operation(3)])
      let all = try fileBytes(path)
      let withoutCommit = Array(all[0..<lineEnds(all).dropLast().last!])
      try writeFile(path, withoutCommit)
      let (transactions, tail, _) = try readLog(path)
      #expect(transactions == [[1]])
      #expect(tail?.reason == "an uncommitted transaction")
      #expect(try fileBytes(path) == committed)
    }
  }

  @Test func aLineInTheLastTransactionUnderItsCommitMakesItADamagedTail() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      var damaged = bytes
      damaged.insert(contentsOf: Array("garbage\n".utf8), at: ends[2])
      try writeFile(path, damaged)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1, 2], [3, 4, 5]])
      #expect(tail?.kind == .damaged)
      #expect(tail?.offset == Int64(ends[2]))
      #expect(try fileBytes(path) == damaged)
    }
  }

  @Test func aLineBeforeALaterCommitIsDamageNotATornWrite() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      var damaged = bytes
      damaged.insert(contentsOf: Array("garbage\n".utf8), at: ends[1])
      try writeFile(path, damaged)
      #expect {
        try readLog(path)
      } throws: { error in
        guard case LogError.damaged(_, 5, _) = error else { return false }
        return true
      }
      #expect(try fileBytes(path) == damaged)
    }
  }

  private func removeSideFiles(in folder: URL) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
    where name.contains(".torn-") {
      try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
  }
}
