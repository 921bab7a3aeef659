import LocalStore
public import StashModel

extension DeviceFolder {
  /// Conflicts recorded on this device: the open ones, or all of them; oldest first.
  public func conflicts(includingSettled: Bool = false) -> [SyncConflict] {
    guard let content else { return [] }
    return content.conflicts.values
      .filter { includingSettled || $0.state == .open }
      .sorted { ($0.noticedAt, $0.id) < ($1.noticedAt, $1.id) }
  }

  /// The conflict `text` names: its id or a unique prefix of it (4+ characters).
  ///
  /// - Throws: ``StashError`` when nothing or several conflicts match.
  public func conflict(_ text: String) throws(StashError) -> SyncConflict {
    let lowered = text.lowercased()
    let matches = conflicts(includingSettled: true).filter {
      $0.id.rawValue == lowered || (lowered.count >= 4 && $0.id.rawValue.hasPrefix(lowered))
    }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw .refused("No conflict '\(text)'; 'stash conflicts' lists the open ones")
    default:
      throw .refused(
        "'\(text)' matches \(matches.count) conflicts: "
          + matches.map { "'\($0.id.short)'" }.joined(separator: ", ") + "; give more of the id")
    }
  }
}
