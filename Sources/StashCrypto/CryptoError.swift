/// Why a cryptographic operation refused its input or could not run.
///
/// No case carries key material, plaintext or ciphertext: only lengths and limits, so an
/// error can be printed, logged or shown in `--json` output as it is.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The tag does not match: the data was changed, damaged, or sealed under another key,
  /// nonce or associated data. Nothing of the plaintext was produced.
  case authenticationFailed
  /// A key of the wrong size; `expected` and `actual` are byte counts.
  case invalidKeyLength(expected: Int, actual: Int)
  /// A nonce of the wrong size; `expected` and `actual` are byte counts.
  case invalidNonceLength(expected: Int, actual: Int)
  /// The message needs more 64-byte blocks than the 32-bit block counter has left
  /// (RFC 8439 limits one key and nonce to 2^32 blocks, 256 GiB).
  case messageTooLong(byteCount: Int, limit: Int)
  /// A sealed message shorter than its nonce and tag, so it cannot be one.
  case sealedMessageTooShort(byteCount: Int, minimum: Int)
  /// HKDF was asked for more than 255 hash lengths (8,160 bytes) of output.
  case outputTooLong(byteCount: Int, limit: Int)
  /// The operating system's random generator failed; no bytes were returned.
  case randomnessUnavailable(reason: String)

  /// What went wrong, in one sentence that names no secret.
  public var description: String {
    switch self {
    case .authenticationFailed:
      return "The data failed authentication: it was changed, damaged, or sealed with another key"
    case .invalidKeyLength(let expected, let actual):
      return "A key has \(actual) bytes where \(expected) are needed"
    case .invalidNonceLength(let expected, let actual):
      return "A nonce has \(actual) bytes where \(expected) are needed"
    case .messageTooLong(let byteCount, let limit):
      return "A message of \(byteCount) bytes is longer than the \(limit) bytes one nonce can seal"
    case .sealedMessageTooShort(let byteCount, let minimum):
      return
        "A sealed message of \(byteCount) bytes is shorter than its \(minimum)-byte nonce and tag"
    case .outputTooLong(let byteCount, let limit):
      return "HKDF cannot derive \(byteCount) bytes; at most \(limit) can be derived from one key"
    case .randomnessUnavailable(let reason):
      return "The system's random generator failed (\(reason)); nothing was encrypted"
    }
  }
}
