import JSONLines
import StashFiles
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ScriptedFileSystem {
  // MARK: - Deciding each call's fate

  /// What a call does.
  enum Fate {
    case proceed
    case fail
    /// Only for a write: the machine stops after storing these bytes.
    case stopAfter([UInt8])
    case stop
    /// The process kills itself, after storing these bytes of a write.
    case kill([UInt8])
  }

  func fate(
    _ operation: Operation, _ path: String, descriptor: Int32? = nil,
    bytes: UnsafeRawBufferPointer? = nil, matching match: (Fault) -> Bool = { _ in false }
  ) -> (Fate, Fault?) {
    state.withLock { state in
      state.counts[operation.rawValue, default: 0] += 1
      var number = 0
      var result: (Fate, Fault?) = (.proceed, nil)
      if operation.canFail {
        state.numbered += 1
        number = state.numbered
      }
      if state.crashed {
        result = (.stop, nil)
      } else if operation.canFail, let crash = state.crashAt, crash.number == number {
        state.crashed = true
        state.crashAt = nil
        switch (crash.crash, bytes) {
        case (.torn(let keep), let bytes?):
          result = (.stopAfter(Array(bytes.prefix(keep))), nil)
        case (.garbled(let keep, let garbage), let bytes?):
          let kept = Array(bytes.prefix(keep))
          result = (.stopAfter(kept + garbage.prefix(max(0, bytes.count - kept.count))), nil)
          state.garbling = garbage.isEmpty ? [0] : garbage
        case (.garbled(_, let garbage), nil):
          result = (.stop, nil)
          state.garbling = garbage.isEmpty ? [0] : garbage
        case (.kill(let keep?), let bytes?):
          result = (.kill(Array(bytes.prefix(max(0, keep)))), nil)
        case (.kill, _):
          result = (.kill([]), nil)
        default:
          result = (.stop, nil)
        }
      } else if operation.canFail, state.failAt == number {
        state.failAt = nil
        result = (.fail, nil)
      } else if let index = state.pending.firstIndex(where: { match($0.fault) }) {
        if state.pending[index].skip > 0 {
          state.pending[index].skip -= 1
        } else {
          result = (.proceed, state.pending.remove(at: index).fault)
        }
      }
      if state.logging {
        let failed: Bool
        if case .proceed = result.0 { failed = result.1 != nil } else { failed = true }
        state.calls.append(
          Call(
            number: number, operation: operation, path: path, descriptor: descriptor,
            failed: failed, length: bytes?.count))
      }
      return result
    }
  }

  /// Records bytes written and not yet synchronized.
  func wrote(_ path: String, at offset: Int64, count: Int) {
    guard count > 0 else { return }
    state.withLock { $0.unsynced[path, default: []].append(offset..<(offset + Int64(count))) }
  }

  /// Forgets the unsynced bytes of a file (synchronized, removed) or moves them (renamed).
  func synchronized(_ path: String, movedTo destination: String? = nil) {
    state.withLock { state in
      let ranges = state.unsynced.removeValue(forKey: path)
      if let destination, let ranges { state.unsynced[destination] = ranges }
    }
  }

  /// Forgets unsynced bytes past `size` (a truncate cut them).
  func truncated(_ path: String, to size: Int64) {
    state.withLock { state in
      guard let ranges = state.unsynced[path] else { return }
      state.unsynced[path] = ranges.compactMap { range in
        range.lowerBound < size ? range.lowerBound..<min(range.upperBound, size) : nil
      }
    }
  }

  /// After a garbled crash, turns every unsynced byte (but `sparing` the range just written,
  /// which already holds its garbage) into garbage, through the real file system.
  func garbleUnsynced(sparing spared: (path: String, range: Range<Int64>)? = nil) {
    let (garbage, unsynced) = state.withLock { ($0.garbling, $0.unsynced) }
    guard let garbage else { return }
    for (path, ranges) in unsynced {
      guard let file = try? base.open(path, .readWrite) else { continue }
      defer { base.close(file) }
      for range in ranges where !(spared?.path == path && spared?.range == range) {
        let bytes = (0..<Int(range.count)).map { garbage[$0 % garbage.count] }
        try? base.write(file, bytes, at: range.lowerBound)
      }
    }
    state.withLock { $0.unsynced.removeAll() }
  }

  /// Whether an open of `path` is denied by a ``Fault/denyOpen(suffix:)``.
  func isDenied(_ path: String) -> Bool {
    state.withLock { state in
      state.pending.contains { entry in
        if case .denyOpen(let suffix) = entry.fault { path.hasSuffix(suffix) } else { false }
      }
    }
  }

  /// Records the descriptor an open returned.
  func opened(_ descriptor: FileDescriptor, _ path: String) {
    state.withLock { state in
      state.paths[descriptor.rawValue] = path
      if state.logging, let last = state.calls.indices.last {
        let call = state.calls[last]
        state.calls[last] = Call(
          number: call.number, operation: .open, path: path, descriptor: descriptor.rawValue,
          failed: false)
      }
    }
  }

  /// Forgets a descriptor being closed; `false` when it was not open (a double close).
  func closing(_ descriptor: FileDescriptor) -> Bool {
    state.withLock { state in
      guard state.paths.removeValue(forKey: descriptor.rawValue) != nil else {
        state.doubleCloses += 1
        return false
      }
      return true
    }
  }

  func injected(_ operation: Operation, _ path: String) -> FileSystemError {
    FileSystemError(
      operation: operation.rawValue, path: path, code: EIO,
      reason: "Input/output error (injected)")
  }

  func stopped(_ operation: Operation, _ path: String) -> FileSystemError {
    FileSystemError(
      operation: operation.rawValue, path: path, code: EIO,
      reason: "Input/output error (the machine stopped)")
  }

  /// The path a descriptor was opened with, and the name errors use for it (`fd N`, as the
  /// real file system's errors do, so that callers name the file themselves).
  func describe(_ file: FileDescriptor) -> (path: String, name: String) {
    (state.withLock { $0.paths[file.rawValue] } ?? "", "fd \(file.rawValue)")
  }

  /// Runs a call that either happens, fails, or meets the stopped machine.
  func simple<T>(
    _ operation: Operation, _ path: String, descriptor: Int32? = nil, name: String? = nil,
    fault matching: Fault? = nil, _ call: () throws(FileSystemError) -> T
  ) throws(FileSystemError) -> T {
    let (fate, fault) = self.fate(operation, path, descriptor: descriptor) { $0 == matching }
    switch fate {
    case .proceed where fault != nil: throw injected(operation, name ?? path)
    case .proceed: return try call()
    case .fail: throw injected(operation, name ?? path)
    case .stop, .stopAfter:
      garbleUnsynced()
      throw stopped(operation, name ?? path)
    case .kill: die()
    }
  }

  /// Sends the process SIGKILL (the crash tests' child dies here).
  func die() -> Never {
    kill(getpid(), SIGKILL)
    while true { pause() }
  }
}
