import Foundation
import JSONLines
import StashBase
import StashModel
import StashTestSupport
import Testing

/// What follows the last commit is told apart by its bytes: a write that stopped leaves a torn
/// tail, anything else is damage, which may hide a change that was reported saved.
@Suite struct LogTailTests {
  /// A log with three transactions; its path, bytes, and the end of each commit.
  private func threeTransactions(in folder: URL) throws -> (
    path: String, bytes: [UInt8], ends: [Int]
  ) {
    let path = folder.appendingPathComponent("a.store").path
    let log = try Log.create(at: path, header: testHeader)
    var ends = [Int(log.committedEnd)]
    try log.append([operation(1), operation(2)])
    ends.append(Int(log.committedEnd))
    try log.append([operation(3), operation(4)])
    ends.append(Int(log.committedEnd))
    try log.append([operation(5), operation(6, "the last one")])
    ends.append(Int(log.committedEnd))
    return (path, try fileBytes(path), ends)
  }

  @Test func aFlippedBitInTheLastCommitLineIsDamageAndAReaderLeavesItInPlace() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      var damaged = bytes
      damaged[lineEnds(bytes).dropLast().last! + 25] ^= 0x04  // inside the last commit line
      try writeFile(path, damaged)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1, 2], [3, 4]])
      let report = try #require(tail)
      #expect(report.kind == .damaged)
      #expect(report.keptAt == nil)
      #expect(report.offset == Int64(ends[2]))
      #expect(report.reason.contains("line 10"), "\(report.reason)")
      #expect(try fileBytes(path) == damaged, "a reader changes nothing")

      let (_, recovered, _) = try readLog(path)
      let kept = try #require(recovered?.keptAt)
      #expect(kept.hasPrefix(path + ".damaged-"))
      #expect(try fileBytes(kept) == Array(damaged[ends[2]...]))
      #expect(try fileBytes(path) == Array(bytes[0..<ends[2]]))
    }
  }

  @Test func everyCutOfTheLastTransactionIsTornButAWholeCommitMissingOnlyItsNewline() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      for cut in (ends[2] + 1)..<bytes.count {
        try writeFile(path, Array(bytes[0..<cut]))
        let (transactions, tail, _) = try readLog(path, recoverTail: false)
        #expect(transactions == [[1, 2], [3, 4]], "cut at \(cut)")
        // A whole commit line is there, only its newline is not: that is what a changed
        // newline looks like, and the commit may have been reported saved.
        let expected: TailReport.Kind = cut == bytes.count - 1 ? .damaged : .torn
        #expect(tail?.kind == expected, "cut at \(cut): \(String(describing: tail))")
        #expect(try fileBytes(path).count == cut, "a reader changes nothing")
      }
    }
  }

  @Test func everyFlippedByteOfTheLastTransactionIsDamageNeverATornWrite() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      var random = SeededRandom(seed: 11)
      for position in ends[2]..<bytes.count {
        var damaged = bytes
        damaged[position] ^= UInt8.random(in: 1...255, using: &random)
        try writeFile(path, damaged)
        do {
          let (transactions, tail, _) = try readLog(path, recoverTail: false)
          #expect(transactions == [[1, 2], [3, 4]], "byte \(position) (seed \(random.seed))")
          #expect(tail?.kind == .damaged, "byte \(position): \(String(describing: tail))")
        } catch LogError.damaged {
          // A changed newline inside the transaction: damage before its (valid) commit line.
        }
      }
    }
  }

  @Test func aLineLongerThanTheLimitIsInvalidWhereverItIs() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, ends) = try threeTransactions(in: folder)
      // A well-framed line of 3 MiB with a valid checksum, as a hand edit could write it.
      let huge = framedLine(
        #""tx":3,"op":{"n":5,"text":""# + String(repeating: "x", count: 3 << 20) + #""}}"#)
      let commit = framedLine(#""tx":3,"commit":1}"#)
      // Under its commit, it is the last transaction's damage; before a later one, refused.
      try writeFile(path, Array(bytes[0..<ends[2]]) + huge + commit)
      let (committed, damaged, _) = try readLog(path, recoverTail: false)
      #expect(committed == [[1, 2], [3, 4]])
      #expect(damaged?.kind == .damaged)
      #expect(damaged?.reason.contains("1 MiB") == true, "\(String(describing: damaged))")
      let later = framedLine(#""tx":4,"op":{"n":9,"text":"later"}}"#)
      try writeFile(
        path, Array(bytes[0..<ends[2]]) + huge + commit + later + framedLine(#""tx":4,"commit":1}"#)
      )
      #expect {
        try readLog(path, recoverTail: false)
      } throws: { error in
        guard case LogError.damaged(_, 8, let reason) = error else { return false }
        return reason.contains("1 MiB")
      }
      try writeFile(path, Array(bytes[0..<ends[2]]) + huge)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [[1, 2], [3, 4]])
      #expect(tail?.kind == .damaged)
    }
  }

  @Test func aSaveWithALineOverTheLimitIsRefusedBeforeAnythingIsWritten() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1)])
      let before = try fileBytes(path)
      let text = String(repeating: "y", count: LogLimits.maximumLineLength)
      #expect {
        try log.append([operation(2), operation(3, text)])
      } throws: { error in
        guard case LogError.lineTooLong(let reported, _, LogLimits.maximumLineLength) = error
        else { return false }
        return reported == path
      }
      #expect(try fileBytes(path) == before)
      try log.append([operation(4)])
      #expect(try readLog(path).transactions == [[1], [4]])
    }
  }
}

/// A log whose lines come thousands to a read (a large transaction, as a first sync writes):
/// the same transactions, first bad line and tail as a small one (the other tail tests read
/// only a few lines per read).
@Suite struct LargeLogScanTests {
  /// A log of one committed 4,000-line transaction and, after it, 3,000 lines of one not
  /// committed; the offsets where each line starts.
  func largeLog(in folder: URL) throws -> (path: String, bytes: [UInt8], starts: [Int]) {
    let path = folder.appendingPathComponent("a.store").path
    let log = try Log.create(at: path, header: testHeader)
    try log.append((1...4000).map { operation($0) })
    let torn = (4001...7000).map { index in
      framedLine(#""tx":2,"op":{"n":\#(index),"text":"operation \#(index)"}}"#)
    }
    let bytes = try fileBytes(path) + torn.flatMap { $0 }
    try writeFile(path, bytes)
    var starts = [0]
    for (offset, byte) in bytes.enumerated() where byte == 10 { starts.append(offset + 1) }
    return (path, bytes, starts)
  }

  @Test func aLargeCommittedTransactionAndATornOneReadAsOneLineAtATime() throws {
    try withTemporaryFolder { folder in
      let (path, _, _) = try largeLog(in: folder)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [Array(1...4000)])
      #expect(tail?.kind == .torn)
      #expect(tail?.line == 4003)
    }
  }

  @Test func aFlippedByteInTheCommittedTransactionNamesItsLine() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, starts) = try largeLog(in: folder)
      for line in [2, 1500, 3001, 4001] {
        var damaged = bytes
        damaged[starts[line - 1] + 30] ^= 0x01
        try writeFile(path, damaged)
        #expect {
          try readLog(path, recoverTail: false)
        } throws: { error in
          guard case LogError.damaged(_, let reported, _) = error else { return false }
          return reported == line
        }
      }
    }
  }

  @Test func aFlippedByteInTheTornTransactionMakesTheTailDamaged() throws {
    try withTemporaryFolder { folder in
      let (path, bytes, starts) = try largeLog(in: folder)
      var damaged = bytes
      damaged[starts[5999] + 30] ^= 0x01  // line 6000, in the uncommitted transaction
      try writeFile(path, damaged)
      let (transactions, tail, _) = try readLog(path, recoverTail: false)
      #expect(transactions == [Array(1...4000)])
      #expect(tail?.kind == .damaged)
      #expect(tail?.reason.hasPrefix("line 6000:") == true, "\(String(describing: tail))")
    }
  }
}

/// A line framed as the log frames it: the checksum prefix, `body`, a newline.
private func framedLine(_ body: String) -> [UInt8] {
  let rest = Array(body.utf8)
  let crc = rest.withUnsafeBytes { CRC32.checksum($0) }
  let hex = String(crc, radix: 16)
  return Array(#"{"crc":""#.utf8)
    + Array((String(repeating: "0", count: 8 - hex.count) + hex).utf8)
    + Array(#"","#.utf8) + rest + [UInt8(ascii: "\n")]
}
