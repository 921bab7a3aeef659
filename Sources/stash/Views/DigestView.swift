import Stash
import StashBase
import StashModel

/// How a digest looks: 16 hex digits at a glance, every digit in JSON.
enum DigestView {
  /// `9c1f3a2b7d4e6f10 (item 1a2b3c4d ×12, location 5e6f7a8b ×2)`, or `… (empty)`.
  static func summary(_ digest: InventoryDigest) -> String {
    let counts = digest.counts
    let models = digest.perModel.sorted { $0.key < $1.key }.map { model, hash in
      "\(model) \(hash.hex.prefix(8)) ×\(counts[model] ?? 0)"
    }
    return String(digest.overall.hex.prefix(16))
      + " (" + (models.isEmpty ? "empty" : models.joined(separator: ", ")) + ")"
  }

  /// `{"overall": hex, "models": {"item": {"digest": hex, "count": n}, …}}`.
  static func json(_ digest: InventoryDigest) -> JSONValue {
    let counts = digest.counts
    var models = JSONObject()
    for (model, hash) in digest.perModel.sorted(by: { $0.key < $1.key }) {
      models.append(
        model,
        .object([
          "digest": .string(hash.hex), "count": .integer(Int64(counts[model] ?? 0)),
        ]))
    }
    return .object(["overall": .string(digest.overall.hex), "models": .object(models)])
  }
}
