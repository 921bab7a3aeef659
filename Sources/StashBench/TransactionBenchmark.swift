import Foundation
import Stash
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `stash-bench transaction [--fights N] [--runs N] [--dir DIR]`: seed 003's scorecard (N
/// fights of 12 rounds each; 300 fights make the 3,900 records of issue 24) saved into a new
/// folder in one `write { tx in ... }` (A) and by the one-time step `saveOnce` (B, the peer:
/// one transaction written for a migration), A and B interleaved (the order alternates), each
/// on a fresh folder. Medians of wall and CPU time (this process's user and system time; both
/// use every core to hash), the ratio A/B (target: at most 2), and, for scale, the median of
/// 50 single saves (one fsync each). Then the query of one fight's 12 rounds through the
/// field index (`RecordQuery`), beside the same answer filtered from every round
/// (`records(of:)`), medians of 200 and 20 runs on random fights.
func transactionBenchmark(_ arguments: [String]) -> Int32 {
  var fights = 300
  var runs = 5
  var folder = "/tmp/stash-bench-transaction"
  var index = 0
  while index < arguments.count {
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch (arguments[index], value.flatMap { Int($0) }) {
    case ("--fights", let number?) where (1...100_000).contains(number): fights = number
    case ("--runs", let number?) where (1...50).contains(number): runs = number
    case ("--dir", _) where value != nil: folder = value!
    default:
      printError(
        "stash-bench transaction: expected --fights 1...100000, --runs 1...50 or --dir DIR, "
          + "not '\(arguments[index])'")
      return 2
    }
    index += 2
  }
  let records = Scorecard.records(fights: fights)
  var samples: [String: [(wall: Double, cpu: Double)]] = [:]
  do {
    for run in 0..<runs {
      for kind in run.isMultiple(of: 2) ? ["write", "saveOnce"] : ["saveOnce", "write"] {
        let home = "\(folder)/\(kind)-\(run)"
        try? FileManager.default.removeItem(atPath: home)
        let target = try SyncFolder.open(at: home, schemas: Scorecard.schemas)
        let sample = try timed {
          if kind == "write" {
            try target.write { tx in
              for record in records { try tx.save(record) }
            }
          } else {
            _ = try target.saveOnce(records, step: "bench")
          }
        }
        samples[kind, default: []].append(sample)
        try? FileManager.default.removeItem(atPath: home)
      }
    }
    let queried = "\(folder)/query"
    try? FileManager.default.removeItem(atPath: queried)
    let target = try SyncFolder.open(at: queried, schemas: Scorecard.schemas)
    try target.write { tx in
      for record in records { try tx.save(record) }
    }
    var random = SystemRandomNumberGenerator()
    for run in 0..<200 {
      let fight = FieldValue.reference(
        .derived(model: "fight", naturalKey: "fight-\(Int.random(in: 0..<fights, using: &random))"))
      samples["query (index)", default: []].append(
        try timed {
          let rounds = try target.records(
            RecordQuery("round").where("fight", equals: fight).sorted(by: "number"))
          precondition(rounds.count == 12)
        })
      guard run < 20 else { continue }
      samples["filter every round", default: []].append(
        timed {
          let rounds = target.records(of: "round").filter { $0.values[0] == fight }
          precondition(rounds.count == 12)
        })
    }
    try? FileManager.default.removeItem(atPath: queried)
    let home = "\(folder)/single"
    try? FileManager.default.removeItem(atPath: home)
    let single = try SyncFolder.open(at: home, schemas: Scorecard.schemas)
    for record in records.prefix(50) {
      samples["single save", default: []].append(try timed { try single.save(record) })
    }
    try? FileManager.default.removeItem(atPath: home)
  } catch {
    printError("stash-bench transaction: \(error)")
    return 1
  }
  func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  print("\(records.count) records (\(fights) fights, 12 rounds each), \(runs) runs, medians")
  print("what                     wall ms    cpu ms")
  for kind in ["write", "saveOnce", "single save", "query (index)", "filter every round"] {
    let values = samples[kind] ?? []
    let wall = median(values.map(\.wall)) * 1000
    let cpu = median(values.map(\.cpu)) * 1000
    print(
      kind.padding(toLength: 22, withPad: " ", startingAt: 0)
        + String(format: "%10.3f %9.3f", wall, cpu))
  }
  let ratio = median(samples["write"]!.map(\.wall)) / median(samples["saveOnce"]!.map(\.wall))
  print(String(format: "write / saveOnce by wall: %.2fx (target: at most 2x)", ratio))
  return 0
}

/// Runs `body` and returns its wall time and this process's CPU time, in seconds.
private func timed(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
  func cpu() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
  let (wallStart, cpuStart) = (Date(), cpu())
  try body()
  return (Date().timeIntervalSince(wallStart), cpu() - cpuStart)
}

/// Seed 003's Boxing Scorecard as records: fights, and rounds naming their fight.
enum Scorecard {
  static let fight = try! Schema(
    model: "fight",
    fields: [
      FieldSpec("title", .string), FieldSpec("scheduledRounds", .integer),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt")
  static let round = try! Schema(
    model: "round",
    fields: [
      FieldSpec("fight", .reference(model: "fight")), FieldSpec("number", .integer),
      FieldSpec("redScore", .integer), FieldSpec("blueScore", .integer),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", indexed: ["fight"])
  static let schemas = [fight, round]

  /// `fights` fights and their 12 rounds each.
  static func records(fights: Int) -> [Record] {
    let time = Timestamp(secondsSince1970: 1_764_441_600)!
    var records = [Record]()
    for number in 0..<fights {
      let id = RecordID.derived(model: "fight", naturalKey: "fight-\(number)")
      records.append(
        try! Record(
          schema: fight, id: id,
          values: [.string("Fight \(number)"), .integer(12), .date(time)]))
      for round in 1...12 {
        records.append(
          try! Record(
            schema: self.round, id: .derived(model: "round", naturalKey: "\(number)-\(round)"),
            values: [
              .reference(id), .integer(Int64(round)), .integer(10), .integer(9), .date(time),
            ]))
      }
    }
    return records
  }
}
