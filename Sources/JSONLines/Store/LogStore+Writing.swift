import StashBase
public import StashFiles
import StashModel
import Synchronization

extension LogStore {
  /// A copy of the content (cheap: its collections are shared until changed).
  public var content: Content { state.withLock { $0.content } }

  /// Saves the changes `body` returns, built against the freshest content.
  ///
  /// `body` runs while this process holds the folder's lock (so no other writer, in this
  /// process or another, can change the file meanwhile) but not the in-memory state's mutex,
  /// so it may read ``content``. A store opened for reading takes write access only when
  /// `body` returns changes: a save that has nothing to write (or throws) changes no file.
  ///
  /// - Parameter body: Reads the fresh content and returns a result and the changes to save.
  ///   If it throws, nothing is written.
  /// - Returns: What `body` returned, and the changes that were saved.
  /// - Throws: ``SaveError/refused(_:)`` with what `body` threw, or ``SaveError/store(_:)``
  ///   with the ``LogStoreError``.
  public func update<T, E: Error>(
    _ body: (Content) throws(E) -> (T, [Content.Change])
  ) throws(SaveError<LogStoreError, E>) -> (result: T, changes: [Content.Change]) {
    let proof: FolderLock.Held
    do { proof = try acquireFresh() } catch { throw .store(error) }
    defer { lock.release(proof) }
    let result: T
    let changes: [Content.Change]
    do { (result, changes) = try body(content) } catch { throw .refused(error) }
    guard !changes.isEmpty else { return (result, changes) }
    do { try write(changes) } catch { throw .store(error) }
    return (result, changes)
  }

  /// Appends `changes` as one transaction and applies them (the caller holds the lock).
  private func write(_ changes: [Content.Change]) throws(LogStoreError) {
    try writing { state throws(LogStoreError) in
      let spans: [LineSpan]
      do throws(LogError) {
        spans = try state.log!.append(
          count: changes.count,
          writing: { Content.appendOperation(for: changes[$0], to: &$1) })
      } catch {
        throw .write(error)
      }
      state.content.reserveCapacity(forApplying: changes)
      for index in changes.indices { state.content.apply(changes[index], at: spans[index]) }
      compactIfWorthIt(&state)
    }
  }

  /// Catches up with what other processes committed.
  ///
  /// - Throws: ``LogStoreError/read(_:)``.
  public func refresh() throws(LogStoreError) {
    lock.release(try acquireFresh())
  }

  /// Reads the whole file again, under the folder's lock: a content built for a few records
  /// (``LogContent/isComplete`` `false`) becomes the whole store's, as an open without the
  /// index would have read it.
  ///
  /// - Throws: ``LogStoreError/read(_:)``.
  public func readWhole() throws(LogStoreError) {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw .read(error) }
    defer { lock.release(proof) }
    let setAside: [TailReport]
    do {
      setAside = try state.withLock { (state) throws(LogError) -> [TailReport] in
        guard state.log != nil else { return [] }
        return try reload(&state, recover: state.log?.isWritable ?? false)
      }
    } catch {
      throw .read(error)
    }
    tell(setAside)
  }

  /// Rewrites the file to hold only the live state.
  ///
  /// - Throws: ``LogStoreError``; after a failed write the old file is untouched.
  public func compact() throws(LogStoreError) {
    let proof = try acquireFresh()
    defer { lock.release(proof) }
    try writing { state throws(LogStoreError) in
      do throws(LogError) {
        if !state.content.isComplete { _ = try reload(&state, recover: true) }
        try state.log!.compact(
          to: LogStore.operations(for: state.content.changesForCompaction))
      } catch {
        throw .write(error)
      }
      state.content.forgetLineSpans()
    }
  }

  /// The end of the committed file, to return to with ``rollBack(to:)``.
  ///
  /// Prefer ``withRollback(_:)``, which also keeps compaction from moving the file under the
  /// mark. A store whose file does not exist yet has a mark no undo accepts.
  public var mark: Log.Mark {
    state.withLock { $0.log?.mark } ?? Log.Mark(end: 0, sequence: 0, lines: 0, generation: 0)
  }

  /// Removes the transactions saved after `mark` and reads the file again.
  ///
  /// - Throws: ``LogStoreError/write(_:)`` with ``LogError/cannotUndo(path:reason:)`` when the
  ///   file was compacted or reopened since the mark (nothing is cut), or the file error.
  public func rollBack(to mark: Log.Mark) throws(LogStoreError) {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw .read(error) }
    defer { lock.release(proof) }
    try state.withLock { (state) throws(LogStoreError) in
      do throws(LogError) {
        guard let log = state.log else {
          throw LogError.cannotUndo(path: path, reason: "the file was never written")
        }
        let end = log.committedEnd
        try log.undo(to: mark)
        guard mark.end < end else { return }
        let (fresh, content, _) = try LogStore.load(
          path: path, context: context, recover: true, fileSystem: fileSystem)
        state.log = fresh
        state.content = content
        state.tail = nil
      } catch {
        throw .write(error)
      }
    }
  }

  /// Runs `body`, and if it throws, undoes every transaction this store saved during it.
  ///
  /// This is how a change that writes this store and then another one stays all or nothing
  /// (a reconcile pass, a resolution): if the second write fails, the first is cut off again.
  /// The folder's lock is held throughout, and compaction waits until `body` has returned
  /// (so that the undo never meets a rewritten file); a compaction that became worthwhile
  /// runs after a successful `body`.
  ///
  /// - Parameter body: The change.
  /// - Returns: What `body` returns.
  /// - Throws: ``RollbackError/undone(_:)`` with what `body` threw, after undoing;
  ///   ``RollbackError/notUndone(_:_:)`` when the undo failed too (the store then keeps what
  ///   `body` had saved, and says so); ``RollbackError/store(_:)`` when the store cannot be
  ///   prepared for writing.
  public func withRollback<T, E: Error>(
    _ body: () throws(E) -> T
  ) throws(RollbackError<E>) -> T {
    let proof: FolderLock.Held
    do { proof = try acquireFresh() } catch { throw .store(error) }
    defer { lock.release(proof) }
    let mark: Log.Mark
    do {
      mark = try writing { state throws(LogStoreError) -> Log.Mark in
        state.compactionHolds += 1
        return state.log!.mark
      }
    } catch {
      throw .store(error)
    }
    let result: T
    do {
      result = try body()
    } catch {
      state.withLock { $0.compactionHolds -= 1 }
      do throws(LogStoreError) {
        try rollBack(to: mark)
      } catch let rollback {
        throw .notUndone(error, rollback)
      }
      throw .undone(error)
    }
    state.withLock { state in
      state.compactionHolds -= 1
      compactIfWorthIt(&state)
    }
    return result
  }

  // MARK: - Catching up and taking write access

  /// Takes the folder's lock and catches up with the file; the caller releases the lock.
  ///
  /// Every change to the in-memory state happens under the folder's lock, which also
  /// serializes this process's threads; the mutex only guards each short step against
  /// readers of ``content``.
  ///
  /// - Throws: ``LogStoreError/read(_:)`` when the lock cannot be taken or catching up fails.
  func acquireFresh() throws(LogStoreError) -> FolderLock.Held {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw .read(error) }
    let setAside: [TailReport]
    do {
      setAside = try state.withLock { (state) throws(LogError) in
        try catchUp(&state, recover: state.log?.isWritable ?? false)
      }
    } catch {
      lock.release(proof)
      throw .read(error)
    }
    tell(setAside)
    return proof
  }

  /// Runs `body` on the state once the file exists and is open for writing, with its tail set
  /// aside (the caller holds the folder's lock and has caught up).
  private func writing<T>(
    _ body: (inout State) throws(LogStoreError) -> T
  ) throws(LogStoreError) -> T {
    var setAside: [TailReport] = []
    defer { tell(setAside) }
    return try state.withLock { (state) throws(LogStoreError) -> T in
      do throws(LogError) {
        setAside = try prepareForWriting(&state)
      } catch {
        throw .write(error)
      }
      return try body(&state)
    }
  }

  /// Creates the file, or opens it for writing and sets its tail aside.
  ///
  /// - Returns: The tails set aside.
  private func prepareForWriting(_ state: inout State) throws(LogError) -> [TailReport] {
    guard let log = state.log else {
      // The catch-up before found no file, so none was created by another process since.
      guard let creation = state.creation else { throw .missing(path) }
      let log = try Log.create(at: path, header: creation.header, fileSystem: fileSystem)
      try log.append(LogStore.operations(for: creation.initialChanges))
      state.log = log
      state.creation = nil
      return []
    }
    if !log.isWritable {
      do {
        try log.makeWritable()
      } catch .needsReopening {
        return try reload(&state, recover: true)
      }
    }
    let setAside = try catchUp(&state, recover: true)
    if let log = state.log, log.header.version < Content.version {
      // Never append lines of this version under an older header: upgrade the file first
      // (from the whole content, never from one built for a few records).
      if !state.content.isComplete { _ = try reload(&state, recover: true) }
      try LogStore.upgradeIfOlder(state.log!, content: state.content, fileSystem: fileSystem)
      // Read the rewritten file once (an upgrade happens once): its lines are then known
      // again, so the save that upgrades can also write what is derived from them.
      _ = try reload(&state, recover: true)
    }
    return setAside
  }

  /// Applies what other processes committed; returns the tails set aside.
  private func catchUp(_ state: inout State, recover: Bool) throws(LogError) -> [TailReport] {
    guard let log = state.log else {
      let exists: Bool
      do { exists = try fileSystem.identity(atPath: path) != nil } catch { throw .io(error) }
      // Created by another process since this store was opened for reading: read that one.
      return exists ? try reload(&state, recover: false) : []
    }
    if log.needsReopening {
      do {
        try log.reopenAndVerify()
      } catch .needsReopening {
        return try reload(&state, recover: recover)
      }
    }
    if !state.content.isComplete && state.content.needsWholeRead {
      // A partial content that met a change it could not apply exactly (its own last save).
      return try reload(&state, recover: recover)
    }
    var content = state.content
    var replay = StreamedReplay<Content>()
    let result = try log.catchUp(recoverTail: recover) { operation in
      replay.add(operation, decoder: content)
    } commit: { (_) throws(LogError) in
      try replay.commit(into: &content, path: path)
    } direct: { bytes, span in
      replay.addDirect(bytes, at: span, decoder: content)
    }
    switch result {
    case .current:
      state.tail = nil
      return []
    case .advanced(_, let tail):
      if !content.isComplete && content.needsWholeRead {
        return try reload(&state, recover: recover)
      }
      state.content = content
      return remember(tail, in: &state)
    case .replaced:
      return try reload(&state, recover: recover)
    }
  }

  /// Reads the file again from the start.
  private func reload(_ state: inout State, recover: Bool) throws(LogError) -> [TailReport] {
    let (log, content, tail) = try LogStore.load(
      path: path, context: context, recover: recover, fileSystem: fileSystem)
    state.log = log
    state.header = log.header
    state.content = content
    state.creation = nil
    return remember(tail, in: &state)
  }

  /// Keeps an ignored tail in the state; returns a tail that was set aside.
  private func remember(_ tail: TailReport?, in state: inout State) -> [TailReport] {
    guard let tail, tail.keptAt != nil else {
      state.tail = tail
      return []
    }
    state.tail = nil
    return [tail]
  }

  private func tell(_ tails: [TailReport]) {
    guard !tails.isEmpty else { return }
    let observers = tailObservers.withLock { $0 }
    for tail in tails {
      for observer in observers { observer(tail) }
    }
  }

  /// Compacts when most of the file is history (see ``CompactionPolicy``), unless a caller
  /// holds compaction off. A failed compaction leaves the (valid) old file and is tried again
  /// on a later save; if it failed after the new file took the old one's place, the log opens
  /// the file again before its next write.
  private func compactIfWorthIt(_ state: inout State) {
    guard state.compactionHolds == 0, state.content.isComplete, let log = state.log,
      log.isWritable,
      compaction.isWorthIt(lines: log.committedLines, liveChanges: state.content.liveChangeCount)
    else { return }
    do throws(LogError) {
      try log.compact(to: LogStore.operations(for: state.content.changesForCompaction))
      state.content.forgetLineSpans()
    } catch {
      // A failed compaction may still have replaced the file: the spans are not trusted.
      state.content.forgetLineSpans()
    }
  }
}

extension LogStore {
  /// The file-system seam the store writes through, for side files written beside it.
  public var fileSystemForRepairs: any FileSystem { fileSystem }
}

extension LogStore {
  /// The log operations of `changes`, in order; a large batch is built on every core.
  static func operations(for changes: [Content.Change]) -> [JSONObject] {
    Parallel.map(count: changes.count) { index in Content.operation(for: changes[index]) }
  }
}
