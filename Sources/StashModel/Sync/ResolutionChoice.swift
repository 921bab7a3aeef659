/// What a person chose to keep when resolving a conflict.
public enum ResolutionChoice: Hashable, Sendable, CustomStringConvertible {
  /// The local side.
  case local
  /// The mirror's side (its winning version when there are several).
  case mirror
  /// Neither: the record is deleted everywhere.
  case deleted
  /// One specific side, named by (a unique prefix of) its hash.
  case version(String)

  /// Reads `local`, `mirror`, `deleted`, or a hash prefix of at least 4 hex digits.
  ///
  /// - Returns: `nil` for anything else.
  public init?(_ text: String) {
    switch text.lowercased() {
    case "local": self = .local
    case "mirror": self = .mirror
    case "deleted": self = .deleted
    case let prefix
    where prefix.count >= 4 && prefix.count <= 64 && prefix.allSatisfy(\.isHexDigit):
      self = .version(prefix)
    default: return nil
    }
  }

  public var description: String {
    switch self {
    case .local: "local"
    case .mirror: "mirror"
    case .deleted: "deleted"
    case .version(let prefix): "version \(prefix)"
    }
  }
}
