public import Foundation
import JSONLines
import LocalStore
package import StashFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a device folder is, and whether a path can be one.
///
/// Paths a person typed never go through Foundation's path APIs (`NSString`'s path methods,
/// `URL(fileURLWithPath:)`, `FileManager`): on Linux they trap on some inputs, such as a
/// relative path whose first component is one character (`a`, `a/b`). Parents are found with
/// ``Paths/components(of:)`` and every check is a `stat` through the file-system seam.
///
/// Decisions where DESIGN.md is silent:
/// - A relative `--home` or `STASH_HOME` is relative to the current folder, as in every other
///   tool; it is used as typed (messages show it as typed).
/// - A relative `XDG_DATA_HOME` is ignored, as the XDG Base Directory specification says
///   ("If an implementation encounters a relative path ... it should consider the path
///   invalid and ignore it").
/// - A relative `HOME` is refused when it would decide the folder: the default folder would
///   then move with the current folder. An unset or empty `HOME` falls back to the home in
///   the user database.
extension DeviceFolder {
  /// The default device folder: `$STASH_HOME`, else `$XDG_DATA_HOME/stash` (when absolute),
  /// else `$HOME/.local/share/stash`.
  ///
  /// Empty variables count as unset.
  ///
  /// - Parameter environment: The variables to read (default: this process's).
  /// - Returns: The folder, as `STASH_HOME` spells it, or an absolute path.
  /// - Throws: ``StashError`` (refused) when the choice falls to a `HOME` that is relative, or
  ///   to no home at all.
  public static func defaultHome(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(StashError) -> String {
    if let home = environment["STASH_HOME"], !home.isEmpty { return home }
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      return joined(data, "stash")
    }
    let choose = "set HOME to an absolute path, or choose a folder with '--home DIR' or STASH_HOME"
    if let user = environment["HOME"], !user.isEmpty {
      guard user.hasPrefix("/") else {
        throw .refused(
          "HOME '\(user)' is not an absolute path, so there is no default device folder; "
            + choose)
      }
      return joined(user, ".local/share/stash")
    }
    guard let user = userDatabaseHome(), user.hasPrefix("/") else {
      throw .refused("HOME is not set, so there is no default device folder; " + choose)
    }
    return joined(user, ".local/share/stash")
  }

  /// Refuses a path that can never be a device folder: a file (or a FIFO, a device) where
  /// the folder or one of its parents should be, a symbolic link loop, a path the system
  /// cannot reach.
  ///
  /// A folder that does not exist yet is fine when its nearest existing parent is a folder:
  /// a writing command creates it.
  ///
  /// - Parameters:
  ///   - home: The device folder, as typed.
  ///   - fileSystem: The file-system seam.
  /// - Throws: ``StashError`` (refused) saying what is in the way and what to do.
  package static func checkHome(
    _ home: String, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) {
    let choose = "choose another with '--home DIR' or STASH_HOME"
    switch entry(at: home, fileSystem) {
    case .folder: return
    case .missing, .belowAFile: break
    case .notAFolder(let kind):
      throw .refused("The device folder '\(home)' is \(kind), not a folder; \(choose)")
    case .unreachable(let reason):
      throw .refused("The device folder '\(home)' cannot be used (\(reason)); \(choose)")
    }
    for parent in parents(of: home) {
      switch entry(at: parent, fileSystem) {
      case .folder: return
      case .missing, .belowAFile: continue
      case .notAFolder(let kind):
        throw .refused(
          "The device folder '\(home)' cannot be created: '\(parent)' is \(kind), not a "
            + "folder; \(choose)")
      case .unreachable(let reason):
        throw .refused(
          "The device folder '\(home)' cannot be created: '\(parent)' cannot be used "
            + "(\(reason)); \(choose)")
      }
    }
  }

  /// The inventory's file name in a device folder (`default.store`).
  package static let inventoryFileName = LocalStore.fileName

  /// Refuses a device folder whose inventory (`default.store`) is there but is not a file
  /// (a folder, a FIFO, a device) or cannot be looked at (a symbolic link loop).
  ///
  /// Such a folder is damaged, for every command alike (exit 4), and nothing is opened, so
  /// nothing is written (not even the lock file). A missing inventory is fine.
  ///
  /// - Parameters:
  ///   - home: The device folder, already known to be a folder.
  ///   - includingKind: Also refuse an inventory that is there but not a regular file; `stash
  ///     doctor` passes `false`, since its report lists that as damage itself.
  ///   - fileSystem: The file-system seam.
  /// - Throws: ``StashError``: damaged; refused when the system denies access.
  package static func checkInventoryFile(
    in home: String, includingKind: Bool = true, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(StashError) {
    let path = home + "/" + LocalStore.fileName
    let fix = "move it aside or restore the device folder from a backup"
    do {
      guard let identity = try fileSystem.identity(atPath: path, followingLinks: true),
        includingKind
      else { return }
      let what: String
      switch identity.kind {
      case .regular: return
      case .directory: what = "a folder"
      case .symbolicLink, .other: what = "a special file (a FIFO, a socket or a device)"
      }
      throw StashError(
        .damaged,
        "The inventory '\(path)' is \(what), not a file; \(fix); examine the folder to see "
          + "what is wrong", hint: .examine)
    } catch let error as FileSystemError {
      guard error.code != EACCES else {
        throw .refused(
          "The inventory '\(path)' cannot be read (\(error.reason)); check the folder's "
            + "permissions")
      }
      throw StashError(.damaged, "The inventory '\(path)' cannot be read (\(error.reason)); \(fix)")
    } catch let error as StashError {
      throw error
    } catch {
      throw .refused("\(error)")
    }
  }

  private enum Entry {
    case folder
    case missing
    /// `ENOTDIR`: a component further up is not a folder.
    case belowAFile
    case notAFolder(String)
    case unreachable(String)
  }

  private static func entry(at path: String, _ fileSystem: any FileSystem) -> Entry {
    do {
      guard let identity = try fileSystem.identity(atPath: path, followingLinks: true) else {
        return .missing
      }
      switch identity.kind {
      case .directory: return .folder
      case .regular: return .notAFolder("a file")
      case .symbolicLink, .other: return .notAFolder("a special file")
      }
    } catch {
      return error.code == ENOTDIR ? .belowAFile : .unreachable(error.reason)
    }
  }

  /// The parents of a path, nearest first, ending with `/` or `.`: `a/b/c` gives `a/b`, `a`, `.`.
  private static func parents(of path: String) -> [String] {
    let parts = Paths.components(of: path)
    let root = path.hasPrefix("/") ? "/" : ""
    var parents = (1..<max(parts.count, 1)).reversed().map { count in
      root + parts.prefix(count).joined(separator: "/")
    }
    parents.append(root.isEmpty ? "." : "/")
    return parents
  }

  private static func joined(_ folder: String, _ name: String) -> String {
    var base = Substring(folder)
    while base.hasSuffix("/") { base = base.dropLast() }
    return base + "/" + name
  }

  private static func userDatabaseHome() -> String? {
    guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
    return String(validatingCString: directory)
  }
}
