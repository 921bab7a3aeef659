import StashFiles
import Synchronization

/// Generations handed out to logs and compactions, never twice in a process.
private let generations = Atomic<UInt64>(0)

extension Log {
  static func nextGeneration() -> UInt64 {
    generations.wrappingAdd(1, ordering: .relaxed).newValue
  }

  /// Opens the file for writing, if it was opened for reading.
  ///
  /// What follows the last commit (a torn or damaged tail) is left in place: the caller's
  /// next ``catchUp(recoverTail:apply:)`` with `recoverTail` sets it aside.
  ///
  /// - Throws: ``LogError/needsReopening(_:)`` when the file at the path is no longer the
  ///   one this log read (compacted or replaced meanwhile): open it again from the start.
  public func makeWritable() throws(LogError) {
    guard !isWritable else { return }
    try replaceDescriptor(mode: .readWrite)
    isWritable = true
  }

  /// Checks that the log may write, and after a failed write or fsync that the file still
  /// holds exactly the committed part this log knows, through a new descriptor.
  ///
  /// - Throws: ``LogError/readOnly(_:)``, ``LogError/needsReopening(_:)`` when the file was
  ///   replaced, ``LogError/damaged(path:line:reason:)`` when its committed part changed.
  func prepareToWrite() throws(LogError) {
    guard isWritable else { throw .readOnly(path) }
    if needsReopening { try reopenAndVerify() }
  }

  /// Opens the file anew and reads its committed part again, checking every line.
  ///
  /// After a failed fsync the kernel may have dropped the failed pages and marked them clean,
  /// so neither the descriptor nor a second fsync can be trusted to mean the bytes are on
  /// disk. This does not write: whatever follows the committed part (another process's
  /// commits, or bytes of the failed write that could not be cut) is left to the next catch-up.
  ///
  /// - Throws: ``LogError/needsReopening(_:)`` when the file was replaced,
  ///   ``LogError/damaged(path:line:reason:)`` when its committed part is not what it was.
  public func reopenAndVerify() throws(LogError) {
    try replaceDescriptor(mode: isWritable ? .readWrite : .readOnly) { fresh throws(LogError) in
      var scanner = Scanner(
        path: path, start: 0, lastSequence: 0, lines: 0, expectsHeader: true, end: committedEnd)
      try scanner.scan(fresh, fileSystem: fileSystem) { _ in }
      guard scanner.committedEnd == committedEnd, scanner.lastSequence == lastSequence,
        scanner.tail == nil
      else {
        throw .damaged(
          path: path, line: scanner.committedLines + 1,
          reason: "its committed part changed after a failed write")
      }
    }
    needsReopening = false
  }

  /// Opens the path again with `mode`, checks it is still this log's file (and whatever
  /// `check` wants), and swaps the descriptors.
  private func replaceDescriptor(
    mode: OpenMode, check: (FileDescriptor) throws(LogError) -> Void = { _ in }
  ) throws(LogError) {
    let fresh: FileDescriptor
    do { fresh = try fileSystem.open(path, mode) } catch {
      throw error.code == 2 ? .needsReopening(path) : .io(error.renamed(path))  // ENOENT
    }
    do throws(LogError) {
      let onDisk = try Log.identity(of: fresh, path, fileSystem)
      guard onDisk.isSameFile(as: identity) else { throw .needsReopening(path) }
      try check(fresh)
    } catch {
      fileSystem.close(fresh)
      throw error
    }
    fileSystem.close(descriptor)
    descriptor = fresh
  }
}
