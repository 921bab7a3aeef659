import Foundation
import StashCrypto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `stash-bench aead [--size BYTES] [--runs N] [--seconds S]`: our ChaCha20-Poly1305 beside
/// `openssl speed -aead -evp chacha20-poly1305` in the same run.
///
/// Each run seals messages of `--size` bytes (16,384 by default, OpenSSL's largest standard
/// size) with 13 bytes of associated data (what `openssl speed -aead` uses) for `--seconds`
/// of CPU time, first with our RFC 8439 AEAD, then with `SealingKey` (XChaCha20-Poly1305 and
/// a random nonce per message, what an encrypted folder uses), then opens such messages with
/// ours, then runs OpenSSL for as long; they alternate run by run. It prints the median throughput per CPU second and
/// per wall second, the CPU time, peak memory and the ratio OpenSSL / ours by CPU time
/// (OpenSSL reports its own user CPU time). On x86-64 it runs OpenSSL a second time with
/// AVX, AVX2, AVX-512F and AVX-512VL masked out (`OPENSSL_ia32cap`), so that it uses 128-bit
/// vectors (SSSE3) as ours do (SSE2): the first ratio is against the fastest code on the
/// machine, the second at the same vector width. Without `openssl` on `PATH` it says so and prints ours alone.
func aeadBenchmark(_ arguments: [String]) -> Int32 {
  var size = 16_384
  var runs = 5
  var seconds = 1
  var index = 0
  while index < arguments.count {
    let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
    switch arguments[index] {
    case "--size" where value.map({ (1...(1 << 26)).contains($0) }) == true: size = value!
    case "--runs" where value.map({ (1...50).contains($0) }) == true: runs = value!
    case "--seconds" where value.map({ (1...60).contains($0) }) == true: seconds = value!
    default:
      printError("usage: stash-bench aead [--size 1...67108864] [--runs 1...50] [--seconds 1...60]")
      return 2
    }
    index += 2
  }
  let openssl = findProgram("openssl")
  let (sealRow, sealingKeyRow, openRow, opensslRow, narrowRow) = (0, 1, 2, 3, 4)
  var rows = [AEADRow(name: "ours, ChaCha20-Poly1305 (RFC 8439)")]
  rows.append(AEADRow(name: "ours, XChaCha20-Poly1305, random nonce (SealingKey)"))
  rows.append(AEADRow(name: "ours, opening the RFC 8439 messages"))
  rows.append(AEADRow(name: "openssl speed -aead -evp chacha20-poly1305"))
  #if arch(x86_64)
    // Leaf 1 ECX bit 28 (AVX) in the first word; leaf 7 EBX bits 5, 16 and 31 (AVX2,
    // AVX-512F, AVX-512VL) in the second: without bit 31 OpenSSL's ChaCha20 still runs its
    // AVX-512VL code on 256-bit registers.
    let narrow: String? = "~0x1000000000000000:~0x80010020"
    rows.append(AEADRow(name: "the same, OPENSSL_ia32cap=\(narrow!) (SSSE3, 128-bit vectors)"))
  #else
    let narrow: String? = nil
  #endif
  let message = [UInt8](repeating: 0x5A, count: size)
  let associated = [UInt8](repeating: 0xA5, count: 13)
  do {
    let key = try SymmetricKey.random()
    let sealing = SealingKey(try SymmetricKey.random())
    let nonce = [UInt8](repeating: 7, count: 12)
    let sealed = try ChaCha20Poly1305.seal(
      message, key: key, nonce: nonce, associatedData: associated)
    for _ in 0..<runs {
      rows[sealRow].samples.append(
        try sealRepeatedly(size: size, seconds: seconds) {
          _ = try ChaCha20Poly1305.seal(
            message, key: key, nonce: nonce, associatedData: associated)
        })
      rows[sealingKeyRow].samples.append(
        try sealRepeatedly(size: size, seconds: seconds) {
          _ = try sealing.seal(message, associatedData: associated)
        })
      rows[openRow].samples.append(
        try sealRepeatedly(size: size, seconds: seconds) {
          _ = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: associated)
        })
      if let openssl, let sample = opensslSpeed(openssl, size: size, seconds: seconds) {
        rows[opensslRow].samples.append(sample)
      }
      if let openssl, let narrow,
        let sample = opensslSpeed(openssl, size: size, seconds: seconds, capabilities: narrow)
      {
        rows[narrowRow].samples.append(sample)
      }
    }
  } catch {
    printError("stash-bench aead: \(error)")
    return 1
  }
  print(
    "stash-bench aead: \(size)-byte messages, 13 bytes of associated data, \(runs) runs of "
      + "\(seconds) s each, interleaved; medians (MB = 10^6 bytes)")
  print("")
  print("| | MB/s per CPU second | MB/s per wall second | CPU s | peak memory |")
  print("|---|---|---|---|---|")
  for row in rows where !row.samples.isEmpty {
    print(row.line)
  }
  guard openssl != nil, !rows[opensslRow].samples.isEmpty else {
    print("")
    print("openssl is not installed (or failed): no ratio")
    return 0
  }
  let theirs = rows[opensslRow].median(\.cpuThroughput)
  let ratio = theirs / rows[sealRow].median(\.cpuThroughput)
  let sealRatio = theirs / rows[sealingKeyRow].median(\.cpuThroughput)
  print("")
  print(
    String(
      format: "OpenSSL / ours by CPU time: %.2f× (RFC 8439 AEAD), %.2f× (SealingKey); "
        + "DESIGN's target: within 3×", ratio, sealRatio))
  if rows.count > narrowRow, !rows[narrowRow].samples.isEmpty {
    let narrowRatio =
      rows[narrowRow].median(\.cpuThroughput) / rows[sealRow].median(\.cpuThroughput)
    print(String(format: "OpenSSL with 128-bit vectors / ours: %.2f×", narrowRatio))
  }
  return 0
}

/// One run of one contender.
private struct AEADSample {
  var bytes: Double
  var cpuSeconds: Double
  var wallSeconds: Double
  var peakBytes: Int
  var cpuThroughput: Double { bytes / max(cpuSeconds, 1e-9) / 1e6 }
  var wallThroughput: Double { bytes / max(wallSeconds, 1e-9) / 1e6 }
}

/// One contender's runs.
private struct AEADRow {
  var name: String
  var samples: [AEADSample] = []

  func median(_ value: KeyPath<AEADSample, Double>) -> Double {
    let sorted = samples.map { $0[keyPath: value] }.sorted()
    return sorted[sorted.count / 2]
  }

  var line: String {
    let peak = samples.map(\.peakBytes).max() ?? 0
    return String(
      format: "| %@ | %.0f | %.0f | %.2f | %.1f MB |", name, median(\.cpuThroughput),
      median(\.wallThroughput), median(\.cpuSeconds), Double(peak) / 1e6)
  }
}

/// Calls `seal` until `seconds` of this process's CPU time have passed.
private func sealRepeatedly(size: Int, seconds: Int, _ seal: () throws -> Void) throws
  -> AEADSample
{
  let cpuStart = processCPUTime()
  let wallStart = Date()
  var count = 0
  while processCPUTime() - cpuStart < Double(seconds) {
    for _ in 0..<16 { try seal() }
    count += 16
  }
  return AEADSample(
    bytes: Double(count * size), cpuSeconds: processCPUTime() - cpuStart,
    wallSeconds: Date().timeIntervalSince(wallStart), peakBytes: ownPeakBytes())
}

/// Runs `openssl speed -aead -evp chacha20-poly1305 -mr` once and reads its `+R` line:
/// `+R:<count>:ChaCha20-Poly1305:<user CPU seconds>`.
private func opensslSpeed(
  _ openssl: String, size: Int, seconds: Int, capabilities: String? = nil
) -> AEADSample? {
  let output = NSTemporaryDirectory() + "/stash-bench-openssl-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: output) }
  // OpenSSL writes its machine-readable lines to standard error; `exec` keeps the peak
  // memory OpenSSL's own.
  let environment = capabilities.map { "OPENSSL_ia32cap='\($0)' " } ?? ""
  let command =
    "\(environment)exec '\(openssl)' speed -aead -evp chacha20-poly1305 -seconds \(seconds) -bytes \(size) "
    + "-mr 2>&1"
  let run = measure("/bin/sh", ["-c", command], output: output)
  guard run.status == 0, let text = try? String(contentsOfFile: output, encoding: .utf8) else {
    return nil
  }
  for line in text.split(separator: "\n") where line.hasPrefix("+R:") {
    let fields = line.split(separator: ":")
    guard fields.count == 4, let count = Double(fields[1]), let cpu = Double(fields[3]) else {
      continue
    }
    // The wall time includes starting the process, a few milliseconds of a second.
    return AEADSample(
      bytes: count * Double(size), cpuSeconds: cpu, wallSeconds: run.seconds,
      peakBytes: run.peakBytes)
  }
  return nil
}

/// This process's CPU time (user and system), in seconds.
private func processCPUTime() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// This process's peak resident memory, in bytes.
private func ownPeakBytes() -> Int {
  var usage = rusage()
  #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
  #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
  #endif
}
