import Foundation
import StashModel

/// The environment, with the variables `stash` reads checked byte for byte.
///
/// Foundation's `ProcessInfo.environment` silently replaces bytes that are not UTF-8 with
/// U+FFFD, so `STASH_HOME=$'/data/x\xFF'` would open (and create) a folder nobody named.
/// The variables that decide the device folder or the clock are read again with `getenv`,
/// and one that is not UTF-8 is refused when it is used, never repaired.
struct RawEnvironment {
  /// The variables `stash` reads, which must be UTF-8 when they decide something.
  static let checked = ["STASH_HOME", "XDG_DATA_HOME", "HOME", "STASH_NOW"]

  /// Every variable, as Foundation read it; the checked ones only when they are UTF-8.
  var values: [String: String]
  /// The checked variables that are not UTF-8, with their invalid bytes written as `\xFF`.
  var notUTF8: [String: String] = [:]

  /// The environment of this process.
  static func read() -> RawEnvironment {
    var environment = RawEnvironment(values: ProcessInfo.processInfo.environment)
    for name in checked {
      guard let pointer = getenv(name) else { continue }
      let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
      if String(validating: bytes, as: UTF8.self) == nil {
        environment.values[name] = nil
        environment.notUTF8[name] = RawArguments.escaped(bytes)
      }
    }
    return environment
  }

  /// Refuses `name` when it is set to bytes that are not UTF-8.
  ///
  /// - Throws: ``ModelError`` naming the variable and showing its value escaped (exit 1).
  func requireUTF8(_ name: String) throws(ModelError) {
    guard let escaped = notUTF8[name] else { return }
    throw ModelError(
      "\(name) '\(escaped)' is not valid UTF-8 text; set it again in UTF-8 (check the "
        + "terminal's encoding) or unset it")
  }
}
