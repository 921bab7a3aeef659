public import StashModel

// A stand-in until the reconciler lands: the real `resolveConflict(_:keep:)` is written on
// main with exactly this signature, and this file is deleted when the branches merge.
extension DeviceFolder {
  /// Settles a conflict by keeping one side (not available yet).
  ///
  /// - Parameters:
  ///   - text: The conflict's id or a unique prefix of it.
  ///   - choice: The side to keep.
  /// - Returns: The resolved conflict.
  /// - Throws: ``StashError``: the conflict is unknown or ambiguous, or resolving is not
  ///   available yet.
  public func resolveConflict(_ text: String, keep choice: ResolutionChoice) throws(StashError)
    -> SyncConflict
  {
    _ = try conflict(text)
    throw .refused("Resolving conflicts arrives with the reconciler")
  }
}
