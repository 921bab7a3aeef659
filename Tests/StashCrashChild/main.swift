// StashCrashChild: runs a seeded workload and kills itself with SIGKILL at one file-system
// call, for the crash tests (test-only; not part of a product).
//
//     StashCrashChild ROOT SEED CALL TEAR
//
// ROOT holds a workload prepared with `Workload.prepare(in:)`. The process runs the steps of
// `Workload(seed: SEED)` and, at its CALL-th failable file-system call (counted exactly as
// `ScriptedFileSystem.callCount` counts them; 0: never), sends itself SIGKILL: before
// the call, or, when the call is a write and TEAR >= 0, after writing its first TEAR bytes
// (the script's `Crash.kill` rule).
// Standard output says `begin N` before step N and `saved N`, `failed N` or `skipped N` after
// it, each line written straight to the descriptor, so what the parent reads is exactly what
// the child had reported when it died.

import Foundation
import JSONLines
import StashModel
import StashTestSupport
import StashWorkload

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 5, let seed = UInt64(arguments[2]), let call = Int(arguments[3]),
  let tear = Int(arguments[4])
else {
  FileHandle.standardError.write(Data("usage: StashCrashChild ROOT SEED CALL TEAR\n".utf8))
  exit(2)
}

func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let workload = Workload(seed: seed)
let files = ScriptedFileSystem()
files.isLogging = false
if call > 0 { files.crash(atCall: call, .kill(keepingBytes: tear >= 0 ? tear : nil)) }
let run = Workload.Run(
  workload: workload, root: URL(fileURLWithPath: arguments[1]), fileSystem: files)
run.run { step, outcome in
  switch outcome {
  case nil: say("begin \(step.index)")
  case .saved?: say("saved \(step.index)")
  case .failed(let reason)?: say("failed \(step.index) \(reason)")
  case .skipped?: say("skipped \(step.index)")
  }
}
say("done \(files.callCount)")
