import Foundation
import StashModel

/// The command line as the operating system passed it, refused when it is not UTF-8.
///
/// `CommandLine.arguments` silently replaces invalid bytes with U+FFFD, which would store a
/// name that nobody typed; reading `CommandLine.unsafeArgv` lets us refuse it instead.
enum RawArguments {
  /// The arguments after the tool's name.
  ///
  /// - Throws: ``ModelError`` naming the first argument that is not valid UTF-8, with its
  ///   invalid bytes written as `\xFF` (exit 1: the input is refused).
  static func read() throws(ModelError) -> [String] {
    var arguments = [String]()
    for index in 1..<Int(CommandLine.argc) {
      guard let pointer = CommandLine.unsafeArgv[index] else { continue }
      let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw ModelError(
          "Argument \(index) '\(escaped(bytes))' is not valid UTF-8 text; retype it (check "
            + "the terminal's encoding)")
      }
      arguments.append(text)
    }
    return arguments
  }

  /// The bytes with every byte outside printable ASCII written as `\xHH`.
  static func escaped(_ bytes: UnsafeRawBufferPointer) -> String {
    bytes.map { byte in
      (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\")
        ? String(UnicodeScalar(byte)) : "\\x" + hex(byte)
    }.joined()
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
