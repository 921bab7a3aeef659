import Foundation
import JSONLines
import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct LogWriteTests {
  @Test(arguments: [
    ScriptedFileSystem.Fault.write(keepingBytes: 0),
    .write(keepingBytes: 1),
    .write(keepingBytes: 40),
    .write(keepingBytes: 1000),
    .synchronize,
  ])
  func aFailedAppendLeavesTheFileAsItWasAndALaterAppendWorks(
    fault: ScriptedFileSystem.Fault
  ) throws {
    try withTemporaryFolder { folder in
      let (path, files, log, before) = try oneOperationLog(in: folder)
      files.inject(fault)
      #expect(throws: LogError.self) {
        try log.append([operation(2, String(repeating: "x", count: 300)), operation(3)])
      }
      #expect(files.allFaultsFired)
      #expect(try fileBytes(path) == before)
      try log.append([operation(4)])
      #expect(try readLog(path).transactions == [[1], [4]])
    }
  }

  @Test func compactionKeepsExactlyTheLiveState() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      for number in 1...50 { try log.append([operation(number)]) }
      let sizeBefore = try fileBytes(path).count
      try log.compact(to: [operation(7), operation(42)])
      try log.append([operation(51)])
      let (transactions, tail, reopened) = try readLog(path)
      #expect(transactions == [[7, 42], [51]])
      #expect(tail == nil)
      #expect(reopened.header == testHeader)
      #expect(try fileBytes(path).count < sizeBefore)
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["a.store"])
    }
  }

  @Test func aFailedCompactionLeavesTheOldFile() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let files = ScriptedFileSystem()
      let log = try Log.create(at: path, header: testHeader, fileSystem: files)
      try log.append([operation(1)])
      try log.append([operation(2)])
      let before = try fileBytes(path)
      files.inject(.rename)
      #expect(throws: LogError.self) { try log.compact(to: [operation(2)]) }
      #expect(try fileBytes(path) == before)
      try log.append([operation(3)])
      #expect(try readLog(path).transactions == [[1], [2], [3]])
    }
  }

  @Test func twoWritersWithTheirOwnHandlesLoseNothingAndInterleaveNoBytes() async throws {
    try await withTemporaryFolderAsync { folder in
      let path = folder.appendingPathComponent("a.store").path
      _ = try Log.create(at: path, header: testHeader)
      let perWriter = 200
      // Each writer has its own descriptors and its own lock file handle, as two processes do.
      try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<2 {
          group.addTask {
            let lock = FolderLock(folder: folder.path, timeout: 30)
            let (_, _, log) = try readLog(path)
            for index in 0..<perWriter {
              try lock.withLock { () throws(LogError) in
                _ = try log.catchUp(recoverTail: true) { _ in }
                try log.append([operation(writer * 10_000 + index, "writer \(writer)")])
              }
            }
          }
        }
        try await group.waitForAll()
      }
      let (transactions, tail, _) = try readLog(path)
      #expect(tail == nil)
      let numbers = transactions.flatMap { $0 }
      #expect(numbers.count == 2 * perWriter)
      #expect(Set(numbers) == Set((0..<perWriter).flatMap { [$0, 10_000 + $0] }))
    }
  }

  @Test func aSecondHolderOfTheFolderLockWaitsThenGivesUp() throws {
    try withTemporaryFolder { folder in
      let first = FolderLock(folder: folder.path)
      let second = FolderLock(folder: folder.path, timeout: 0.05)
      try first.withLock { () throws(LogError) in
        #expect(throws: LogError.busy(folder.path + "/lock")) { try second.withLock {} }
        try first.withLock { #expect(first.isHeld) }
      }
      try second.withLock { #expect(second.isHeld) }
      #expect(!first.isHeld)
    }
  }
}

/// A large transaction is encoded on every core: its lines are those of the same operations
/// written one transaction at a time, in order, and a line over the limit anywhere in it is
/// refused before anything is written.
@Suite struct LargeTransactionTests {
  @Test func aLargeTransactionReadsBackInOrderWithItsLineSpans() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      let operations = (1...5000).map { operation($0, String(repeating: "é\"\\", count: $0 % 40)) }
      let spans = try log.append(operations)
      #expect(spans.count == 5000)
      let bytes = try fileBytes(path)
      for (index, span) in spans.enumerated() {
        let line = Array(bytes[Int(span.offset)..<(Int(span.offset) + span.length)])
        #expect(bytes[Int(span.offset) + span.length] == 10)
        #expect(span.line == index + 2)
        guard case .object(let parsed)? = try? JSONParser.parse(line),
          case .object(let op)? = parsed["op"]
        else {
          Issue.record("line \(index + 2) does not parse")
          return
        }
        #expect(op == operations[index])
      }
      let (transactions, tail, _) = try readLog(path)
      #expect(transactions == [Array(1...5000)])
      #expect(tail == nil)
      // The same operations appended in small transactions give the same op lines.
      let other = folder.appendingPathComponent("b.store").path
      let small = try Log.create(at: other, header: testHeader)
      for start in stride(from: 0, to: 5000, by: 100) {
        try small.append(Array(operations[start..<(start + 100)]))
      }
      let (smallTransactions, _, _) = try readLog(other)
      #expect(smallTransactions.flatMap { $0 } == Array(1...5000))
    }
  }

  /// A large transaction is written piece by piece (no second copy of it in memory): a write
  /// that fails on any piece, or the fsync after the last, leaves the file as it was.
  @Test(arguments: [0, 1, 5, 19])
  func aFailedWriteOfAnyPieceLeavesTheFileAsItWas(skipping pieces: Int) throws {
    try withTemporaryFolder { folder in
      let (path, files, log, before) = try oneOperationLog(in: folder)
      let operations = (2...5001).map { operation($0) }  // 20 pieces of 256 lines
      files.inject(.write(keepingBytes: 100), afterSkipping: pieces)
      #expect(throws: LogError.self) { try log.append(operations) }
      #expect(files.allFaultsFired)
      #expect(try fileBytes(path) == before)
      files.inject(.synchronize)
      #expect(throws: LogError.self) { try log.append(operations) }
      #expect(try fileBytes(path) == before)
      try log.append(operations)
      #expect(try readLog(path).transactions == [[1], Array(2...5001)])
    }
  }
}

/// A log in `folder` holding one transaction of operation 1, written through a fault-injecting
/// file system, and its bytes.
func oneOperationLog(in folder: URL) throws -> (
  path: String, files: ScriptedFileSystem, log: Log, before: [UInt8]
) {
  let path = folder.appendingPathComponent("a.store").path
  let files = ScriptedFileSystem()
  let log = try Log.create(at: path, header: testHeader, fileSystem: files)
  try log.append([operation(1)])
  return (path, files, log, try fileBytes(path))
}
