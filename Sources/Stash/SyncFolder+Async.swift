public import StashModel

extension SyncFolder {
  /// The `async` forms of this folder's operations, whose blocking file I/O runs on
  /// ``StashIO``'s threads: calling them from the main actor never blocks it.
  ///
  /// ```swift
  /// try await folder.async.save(meter)      // the caller's actor is free while it writes
  /// let report = try await folder.async.sync()
  /// ```
  public var async: AsyncForms { AsyncForms(folder: self) }

  /// The `async` forms of a folder's operations (see ``SyncFolder/async``).
  ///
  /// Each runs the blocking form on ``StashIO``'s queue. A task cancelled before its work
  /// started throws ``StashIO/cancelled`` and changes nothing; work that started finishes (a
  /// save commits whole or not at all, a sync is never left half-done).
  public struct AsyncForms: Sendable {
    /// The folder.
    public let folder: SyncFolder

    /// Saves a value (see ``SyncFolder/save(_:)-(T)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    @discardableResult
    public func save<T: RecordRepresentable>(_ value: T) async throws(StashError) -> T {
      try await StashIO.run { () throws(StashError) -> T in try folder.save(value) }
    }

    /// Saves a record (see ``SyncFolder/save(_:)-(Record)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    public func save(_ record: Record) async throws(StashError) {
      try await StashIO.run { () throws(StashError) in try folder.save(record) }
    }

    /// Changes a value in one transaction (see ``SyncFolder/update(_:id:_:)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    @discardableResult
    public func update<T: RecordRepresentable>(
      _ type: T.Type, id: RecordID,
      _ change: @escaping @Sendable (inout T) throws(StashError) -> Void
    ) async throws(StashError) -> T {
      try await StashIO.run { () throws(StashError) -> T in
        try folder.update(type, id: id, change)
      }
    }

    /// Saves, updates and deletes many records in one transaction (see
    /// ``SyncFolder/write(_:)``).
    ///
    /// - Throws: What `body` throws, as it is; the save's failure (a ``StashError``); or
    ///   ``StashIO/cancelled``.
    @discardableResult
    public func write<T: Sendable>(
      _ body: @escaping @Sendable (inout WriteTransaction) throws -> T
    ) async throws -> T {
      let outcome = try await StashIO.run { () throws(StashError) -> Result<T, any Error> in
        Result { try folder.write(body) }
      }
      return try outcome.get()
    }

    /// Deletes a record (see ``SyncFolder/delete(_:)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    @discardableResult
    public func delete(_ key: RecordKey) async throws(StashError) -> Record {
      try await StashIO.run { () throws(StashError) -> Record in try folder.delete(key) }
    }

    /// Syncs once (see ``SyncFolder/sync(progress:)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    public func sync() async throws(StashError) -> SyncRunReport {
      try await StashIO.run { () throws(StashError) -> SyncRunReport in try folder.sync() }
    }

    /// The conflicts, read after catching up with what other processes saved (see
    /// ``SyncFolder/conflicts(includingSettled:)`` and ``SyncFolder/refresh()``).
    ///
    /// - Throws: ``StashError`` when the stores cannot be read again, or
    ///   ``StashIO/cancelled``.
    public func conflicts(includingSettled: Bool = false) async throws(StashError)
      -> [SyncConflict]
    {
      try await StashIO.run { () throws(StashError) -> [SyncConflict] in
        try folder.refresh()
        return folder.conflicts(includingSettled: includingSettled)
      }
    }

    /// Resolves a conflict (see ``SyncFolder/resolveConflict(_:keep:)``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    @discardableResult
    public func resolveConflict(
      _ text: String, keep choice: ResolutionChoice
    ) async throws(StashError) -> SyncConflict {
      try await StashIO.run { () throws(StashError) -> SyncConflict in
        try folder.resolveConflict(text, keep: choice)
      }
    }

    /// Catches up with what other processes saved (see ``SyncFolder/refresh()``).
    ///
    /// - Throws: ``StashError`` as that does, or ``StashIO/cancelled``.
    public func refresh() async throws(StashError) {
      try await StashIO.run { () throws(StashError) in try folder.refresh() }
    }
  }
}
