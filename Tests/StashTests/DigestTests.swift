import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The inventory digest: the construction of `Fixtures/README.md` section 5, checked against
/// vectors computed in Python (`Fixtures/digest/digest.py`), and kept current by `update`.
@Suite struct DigestTests {
  struct Vector {
    var name: String
    var entries: [RecordKey: InventoryDigest.Entry]
    var overall: String
    var models: [String: String]
  }

  static func vectors() throws -> [Vector] {
    let json = try JSONParser.parse(
      String(decoding: try Fixtures.bytes("digest/vectors.json"), as: UTF8.self))
    guard case .array(let cases) = json else { return [] }
    return try cases.map { value in
      guard case .object(let object) = value, case .string(let name)? = object["name"],
        case .array(let entries)? = object["entries"],
        case .string(let overall)? = object["overall"],
        case .object(let models)? = object["models"]
      else { throw ModelError("A digest vector is malformed") }
      var keyed = [RecordKey: InventoryDigest.Entry]()
      for entry in entries {
        guard case .object(let fields) = entry, case .string(let model)? = fields["model"],
          case .string(let id)? = fields["id"], let recordID = RecordID(id),
          case .bool(let tombstone)? = fields["tombstone"], case .string(let hex)? = fields["hash"],
          let hash = SnapshotHash(hex: hex)
        else { throw ModelError("A digest vector's entry is malformed") }
        keyed[RecordKey(model: model, id: recordID)] = .init(isTombstone: tombstone, hash: hash)
      }
      var roots = [String: String]()
      for (model, root) in models { if case .string(let hex) = root { roots[model] = hex } }
      return Vector(name: name, entries: keyed, overall: overall, models: roots)
    }
  }

  @Test func matchesTheVectorsComputedInPython() throws {
    let vectors = try Self.vectors()
    #expect(vectors.count == 4)
    for vector in vectors {
      let digest = InventoryDigest(vector.entries)
      #expect(digest.overall.hex == vector.overall, "\(vector.name)")
      #expect(digest.perModel.mapValues(\.hex) == vector.models, "\(vector.name)")
    }
  }

  @Test func updatingOneRecordAtATimeGivesTheDigestOfTheWhole() throws {
    for seed in TestEnvironment.seeds(default: 3) { try updatesMatch(seed: seed) }
  }

  private func updatesMatch(seed: UInt64) throws {
    print("DigestTests seed \(seed) (STASH_SEED=\(seed) replays it)")
    var random = SeededRandom(seed: seed)
    var entries = [RecordKey: InventoryDigest.Entry]()
    var digest = InventoryDigest()
    let models = ["item", "location", "reminder"]
    var keys = [RecordKey]()
    for step in 0..<400 {
      let key: RecordKey
      if keys.isEmpty || random.next() % 3 == 0 {
        key = RecordKey(
          model: models[Int(random.next() % 3)], id: RecordID.random(using: &random))
        keys.append(key)
      } else {
        key = keys[Int(random.next() % UInt64(keys.count))]
      }
      let entry: InventoryDigest.Entry? =
        random.next() % 5 == 0
        ? nil
        : .init(
          isTombstone: random.next() % 4 == 0,
          hash: SnapshotHash(digest: SHA256.hash("\(seed) \(step)")))
      entries[key] = entry
      digest.update(key, to: entry)
      if step % 50 == 0 {
        #expect(digest.overall == InventoryDigest(entries).overall, "seed \(seed) step \(step)")
      }
    }
    let whole = InventoryDigest(entries)
    #expect(digest.overall == whole.overall, "seed \(seed)")
    #expect(digest.perModel == whole.perModel, "seed \(seed)")
    #expect(digest.counts == whole.counts, "seed \(seed)")
  }

  @Test func anyChangeOfAnyRecordChangesTheDigest() throws {
    let vector = try #require(try Self.vectors().last)
    let base = InventoryDigest(vector.entries).overall
    var seen: Set<SHA256Digest> = [base]
    for key in vector.entries.keys.sorted().prefix(40) {
      var changed = vector.entries
      let old = changed[key]!
      changed[key] = .init(isTombstone: !old.isTombstone, hash: old.hash)
      #expect(seen.insert(InventoryDigest(changed).overall).inserted, "\(key) as the other kind")
      changed[key] = nil
      #expect(seen.insert(InventoryDigest(changed).overall).inserted, "\(key) removed")
    }
  }
}
