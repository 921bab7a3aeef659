import Foundation
import JSONLines
import StashBase
import StashFiles
import StashModel
import StashTestSupport

/// A header with fixed identifiers, so that test logs are byte-for-byte repeatable.
let testHeader = LogHeader(
  format: "stash.test", version: 1, storeID: StoreID("00000000-0000-4000-8000-000000000001")!,
  deviceID: DeviceID("00000000-0000-4000-8000-000000000002")!,
  created: Timestamp(secondsSince1970: 1_764_441_600)!)

/// An operation object with a number and some text, easy to tell apart.
func operation(_ number: Int, _ text: String = "") -> JSONObject {
  ["n": .integer(Int64(number)), "text": .string(text.isEmpty ? "operation \(number)" : text)]
}

/// Opens the log at `path` and returns its transactions as lists of operation numbers.
func readLog(
  _ path: String, recoverTail: Bool = true, fileSystem: any FileSystem = POSIXFileSystem()
) throws -> (transactions: [[Int]], tail: TailReport?, log: Log) {
  var transactions = [[Int]]()
  let (log, tail) = try Log.open(
    at: path, format: "stash.test", supportedVersion: 1, recoverTail: recoverTail,
    fileSystem: fileSystem
  ) { transaction in
    transactions.append(
      transaction.operations.map { operation in
        guard case .integer(let n)? = operation.object["n"] else { return -1 }
        return Int(n)
      })
  }
  return (transactions, tail, log)
}

/// The whole file.
func fileBytes(_ path: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Replaces the whole file.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The byte offsets just after each newline of `bytes` (line ends).
func lineEnds(_ bytes: [UInt8]) -> [Int] {
  bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
}
