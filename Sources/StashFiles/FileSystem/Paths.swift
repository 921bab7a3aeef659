#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Path arithmetic done with plain strings and POSIX calls.
///
/// Foundation's path APIs (`URL(fileURLWithPath:)`, `standardizedFileURL`, `NSString`'s
/// path methods) trap on some inputs on Linux (a relative path whose first component is one
/// character, such as `a` or `a/b`), so nothing that handles a path a person typed goes
/// through them.
public enum Paths {
  /// The components of a path, without empty ones and `.`: `"/a//b/./c/"` is `["a", "b", "c"]`.
  public static func components(of path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
  }

  /// `path` made absolute against the current folder and normalized lexically: empty and
  /// `.` components dropped, `..` applied (never above `/`). Symbolic links are not resolved.
  ///
  /// - Parameters:
  ///   - path: Any path; an empty one means the current folder.
  ///   - base: The folder a relative path is relative to (default: the current folder).
  /// - Returns: An absolute path without a trailing slash (`/` for the root).
  public static func absolute(_ path: String, relativeTo base: String? = nil) -> String {
    var parts: [Substring] = []
    if !path.hasPrefix("/") {
      parts = components(of: base ?? currentFolder()).filter { $0 != ".." }
    }
    for part in components(of: path) {
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
      } else {
        parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  /// `path` made absolute, with every symbolic link in the part that exists resolved
  /// (`realpath`), and the part that does not exist yet appended as it is.
  ///
  /// Two paths that name the same folder, through links or `..`, resolve to the same text;
  /// this is what checks such as "the shared folder must not be inside the device folder"
  /// compare.
  public static func resolved(_ path: String, relativeTo base: String? = nil) -> String {
    let absolute = absolute(path, relativeTo: base)
    var existing = absolute
    var rest: [Substring] = []
    while true {
      if let real = realPath(existing) {
        guard !rest.isEmpty else { return real }
        return (real == "/" ? "" : real) + "/" + rest.reversed().joined(separator: "/")
      }
      guard existing != "/", let slash = existing.lastIndex(of: "/") else { return absolute }
      rest.append(existing[existing.index(after: slash)...])
      existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
    }
  }

  /// Whether `inner` is `outer` or lies inside it, comparing whole components of the two
  /// (already absolute and normalized) paths: `/a/bc` is not inside `/a/b`.
  public static func isSameOrInside(_ inner: String, _ outer: String) -> Bool {
    let innerParts = components(of: inner)
    let outerParts = components(of: outer)
    return innerParts.count >= outerParts.count
      && zip(innerParts, outerParts).allSatisfy { $0 == $1 }
  }

  /// The current folder, or `/` when it cannot be read (it was removed).
  public static func currentFolder() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "/" }
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
