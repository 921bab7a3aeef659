import Foundation

/// The table and the JSON of `stash-bench targets`.
extension TargetBench {
  func printTable(_ run: BenchRun) {
    let storeBytes = fileSize(storePath)
    print("$ stash-bench targets " + CommandLine.arguments.dropFirst(2).joined(separator: " "))
    print(
      "stash-bench targets: \(size) items, default.store \(megabytes(storeBytes)) MB, "
        + "\(runs) runs (whole-store rows \(wholeStoreRuns)"
        + (memoryOnlyRuns == wholeStoreRuns ? "" : ", export and doctor \(memoryOnlyRuns)")
        + "), A and B interleaved, medians "
        + "(best-worst beside them), process start to exit, nothing flushed")
    print(
      "load average before \(loads(run.loadBefore)), after \(loads(run.loadAfter)); the run "
        + "took \(Int(run.seconds.rounded())) s")
    print("")
    print("| scenario | ours: wall (best-worst), CPU, peak | peer | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for result in run.results {
      let peer =
        result.peer.map { "\(result.peerName) \(figures($0))" }
        ?? (result.peerName == "-" ? "-" : result.note ?? "failed")
      var ratio = "-"
      if let judged = result.ratio() {
        ratio = String(format: "%.2f× %@", judged, result.judge.rawValue)
        if result.judge == .cpu, let wall = result.ratio(by: .wall) {
          ratio += String(format: " (%.2f× wall)", wall)
        }
      }
      print(
        "| \(result.name) | \(result.ours.map(figures) ?? "failed") | \(peer) | \(ratio) "
          + "| \(targetText(result)) | \(met(result, storeBytes: storeBytes)) |")
    }
    print("")
    print(
      "ours at 1k: the same scenario on a 1,000-item folder in the same run. Whole-store "
        + "memory targets are against this store's \(megabytes(storeBytes)) MB.")
  }

  /// `12.3 ms (11.9-14.0), CPU 10.1 ms, 17.0 MB`: median wall time (best-worst), median CPU
  /// time, highest peak.
  func figures(_ timing: Timing) -> String {
    "\(milliseconds(timing.median)) ms (\(milliseconds(timing.best))-\(milliseconds(timing.worst))), "
      + "CPU \(milliseconds(timing.cpuMedian)) ms, \(megabytes(timing.peakBytes)) MB"
  }

  func loads(_ values: [Double]) -> String {
    values.isEmpty ? "unknown" : values.map { String(format: "%.2f", $0) }.joined(separator: " ")
  }

  func targetText(_ result: ScenarioResult) -> String {
    var parts = [String]()
    if let allowed = result.allowedRatio {
      let scaled = result.peerScale == 1 ? "" : " of 1k × \(Int(result.peerScale)) (linear)"
      parts.append("≤ \(formatRatio(allowed))\(scaled) by \(result.judge.rawValue)")
    }
    switch result.memory {
    case .halfStore: parts.append("peak < 0.5× store")
    case .store: parts.append("peak ≤ store")
    case nil: break
    }
    return parts.joined(separator: ", ")
  }

  /// `yes`, or `no:` and what missed (`time`, `memory`); `-` when a figure is missing.
  func met(_ result: ScenarioResult, storeBytes: Int) -> String {
    guard let ours = result.ours else { return "-" }
    var missed = [String]()
    if let allowed = result.allowedRatio {
      guard let ratio = result.ratio() else { return "-" }
      if ratio > allowed { missed.append("time") }
    }
    switch result.memory {
    case .halfStore where Double(ours.peakBytes) >= 0.5 * Double(storeBytes),
      .store where ours.peakBytes > storeBytes:
      missed.append("memory")
    default: break
    }
    return missed.isEmpty ? "yes" : "no: " + missed.joined(separator: ", ")
  }

  func printJSON(_ run: BenchRun) {
    let storeBytes = fileSize(storePath)
    func timing(_ timing: Timing?) -> Any {
      guard let timing else { return NSNull() }
      return [
        "medianMs": timing.median * 1000, "bestMs": timing.best * 1000,
        "worstMs": timing.worst * 1000,
        "cpuMedianMs": timing.cpuMedian * 1000, "cpuBestMs": timing.cpuBest * 1000,
        "peakBytes": timing.peakBytes, "peakMedianBytes": timing.peakMedianBytes,
        "runs": timing.runs,
      ]
    }
    let scenarios: [[String: Any]] = run.results.map { result in
      [
        "name": result.name, "ours": timing(result.ours), "peer": result.peerName,
        "peerTiming": timing(result.peer), "ratio": result.ratio() ?? NSNull(),
        "ratioWall": result.ratio(by: .wall) ?? NSNull(),
        "ratioCPU": result.ratio(by: .cpu) ?? NSNull(), "judgedBy": result.judge.rawValue,
        "peerScale": result.peerScale, "allowedRatio": result.allowedRatio ?? NSNull(),
        "memoryTarget": result.memory?.rawValue ?? NSNull(),
        "met": met(result, storeBytes: storeBytes), "note": result.note ?? NSNull(),
      ]
    }
    let object: [String: Any] = [
      "items": size, "storeBytes": storeBytes, "runs": runs, "wholeStoreRuns": wholeStoreRuns,
      "memoryOnlyRuns": memoryOnlyRuns,
      "loadAverage": ["before": run.loadBefore, "after": run.loadAfter],
      "seconds": run.seconds, "scenarios": scenarios,
    ]
    if let data = try? JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    {
      print(String(decoding: data, as: UTF8.self))
    }
  }
}
