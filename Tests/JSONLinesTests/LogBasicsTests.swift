import Foundation
import JSONLines
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

@Suite struct LogBasicsTests {
  @Test func appendedTransactionsComeBackInOrderAfterReopening() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1), operation(2)])
      try log.append([operation(3)])
      let (transactions, tail, reopened) = try readLog(path)
      #expect(transactions == [[1, 2], [3]])
      #expect(tail == nil)
      #expect(reopened.header == testHeader)
      #expect(reopened.lastSequence == 2)
    }
  }

  @Test func createdFilesAreOwnerOnlyAndFoldersToo() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("device/a.store").path
      _ = try Log.create(at: path, header: testHeader)
      let files = POSIXFileSystem()
      #expect(try files.identity(atPath: path)?.permissions == 0o600)
      #expect(
        try files.identity(atPath: folder.appendingPathComponent("device").path)?.permissions
          == 0o700)
    }
  }

  @Test func creatingOverAnExistingFileIsRefused() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      _ = try Log.create(at: path, header: testHeader)
      #expect(throws: LogError.alreadyExists(path)) { try Log.create(at: path, header: testHeader) }
    }
  }

  @Test func everyLineIsAJSONObjectWithAChecksumOfTheRest() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1, "naïve \"quoted\" \\ 🧴 \u{0}"), operation(2)])
      let bytes = try fileBytes(path)
      var start = 0
      for end in lineEnds(bytes) {
        let line = Array(bytes[start..<(end - 1)])
        let stored = UInt32(String(decoding: line[8..<16], as: UTF8.self), radix: 16)
        #expect(stored == CRC32.checksum(Array(line[18...])))
        guard case .object(let object) = try JSONParser.parse(line) else {
          Issue.record("line is not an object")
          return
        }
        #expect(object.keys.first == "crc")
        start = end
      }
      #expect(start == bytes.count)
    }
  }

  @Test func aNewerFormatVersionIsRefusedWithBothVersionsNamed() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      var header = testHeader
      header.version = 2
      _ = try Log.create(at: path, header: header)
      #expect(throws: LogError.unsupportedVersion(path: path, found: 2, supported: 1)) {
        try readLog(path)
      }
    }
  }

  @Test func aFileOfAnotherFormatIsRefused() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      var header = testHeader
      header.format = "stash.other"
      _ = try Log.create(at: path, header: header)
      #expect(
        throws: LogError.wrongFormat(path: path, found: "stash.other", expected: "stash.test")
      ) {
        try readLog(path)
      }
    }
  }

  @Test func aMissingFileIsReportedAsMissing() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("none.store").path
      #expect(throws: LogError.missing(path)) { try readLog(path) }
    }
  }

  @Test func undoRemovesTheLastTransactionOnly() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1)])
      let mark = log.mark
      try log.append([operation(2), operation(3)])
      try log.undo(to: mark)
      try log.append([operation(4)])
      #expect(try readLog(path).transactions == [[1], [4]])
    }
  }

  @Test func anotherHandleCatchesUpWithAppendsAndNoticesReplacement() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let writer = try Log.create(at: path, header: testHeader)
      let (_, _, reader) = try readLog(path)
      try writer.append([operation(1)])
      try writer.append([operation(2)])
      var seen = [Int64]()
      let result = try reader.catchUp(recoverTail: true) { seen.append($0.sequence) }
      #expect(result == .advanced(transactions: 2, tail: nil))
      #expect(seen == [1, 2])
      #expect(try reader.catchUp(recoverTail: true) { _ in } == .current)
      try writer.compact(to: [operation(9)])
      #expect(try reader.catchUp(recoverTail: true) { _ in } == .replaced)
    }
  }
}
