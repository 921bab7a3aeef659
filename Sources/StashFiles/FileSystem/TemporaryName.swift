/// The one spelling of a temporary file's name, and the one test that recognises one.
///
/// A file that is written whole and then renamed (or linked) to its final name is first
/// written beside it as `.<name>.tmp`, or `.<name>.<unique>.tmp` when several writers may
/// make one at once (the shared folder, the photos). The spelling is the shared folder's
/// published one (Fixtures/README, section 2): a reader of any version skips a name that
/// starts with `.` or ends in `.tmp`, and this one does both.
///
/// Older versions spelt temporary names three other ways, which a crash may have left
/// behind: `<name>.tmp` (the stores, the derived files, the key file's `<name>.<n>.tmp`),
/// `.tmp-<id>` (the photos) and `<store>.new-identity` (a new identity's store).
/// ``isTemporary(_:)`` recognises them all, so that nothing takes a leftover for a real file.
public enum TemporaryName {
  /// The temporary path a file bound for `path` is written to first, in the same folder.
  ///
  /// - Parameters:
  ///   - path: The final path.
  ///   - unique: A fresh identifier when several writers may make a temporary name for the
  ///     same path at once (`nil`: one writer, which removes a leftover before it writes).
  /// - Returns: `<folder>/.<name>.tmp`, or `<folder>/.<name>.<unique>.tmp`.
  public static func path(for path: String, unique: String? = nil) -> String {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return folder + "." + name + (unique.map { "." + $0 } ?? "") + suffix
  }

  /// Whether a file name (without its folder) is a temporary name, in today's spelling or in
  /// one an older version wrote.
  public static func isTemporary(_ name: String) -> Bool {
    name.hasSuffix(suffix) || name.hasPrefix(".tmp-") || name.hasSuffix(".new-identity")
  }

  /// The suffix every temporary name ends with.
  static let suffix = ".tmp"
}
