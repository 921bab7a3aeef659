import Foundation
import StashBase
import StashModel
import Testing

@testable import StashCrypto

/// `Fixtures/crypto/folder-key.json`, written by `folder_key.py` from the documented format.
struct FolderKeyVector: Decodable {
  var key: String
  var syncKey: String
  var keyID: String
  var subkeys: [String: String]
  var photoSHA256: String
  var photoName: String
  var sealNonce: String
  var sealPlaintext: String
  var sealAssociatedData: String
  var sealed: String
}

/// The folder key, its sync key text, key id, subkeys, photo names and sealing.
@Suite struct FolderKeyTests {
  let vectors = try! cryptoFixture("folder-key.json", as: [FolderKeyVector].self)

  func folderKey(_ vector: FolderKeyVector) throws -> FolderKey {
    FolderKey(try SymmetricKey(bytes: bytes(hex: vector.key)))
  }

  @Test func everyDerivedValueMatchesThePythonReimplementation() throws {
    #expect(vectors.count == 4)
    for vector in vectors {
      let key = try folderKey(vector)
      #expect(key.syncKeyText == vector.syncKey)
      #expect(key.id.hex == vector.keyID)
      for purpose in KeyPurpose.allCases {
        let expected = try SymmetricKey(bytes: bytes(hex: vector.subkeys[purpose.rawValue]!))
        #expect(key.subkey(for: purpose) == expected, "\(purpose)")
      }
      let photo = SHA256Digest(hex: vector.photoSHA256)!
      #expect(key.photoNamingKey.name(forPhoto: photo).hex == vector.photoName)
      let sealing = key.sealingKey(for: .segments)
      let plaintext = bytes(hex: vector.sealPlaintext)
      let aad = bytes(hex: vector.sealAssociatedData)
      let sealed = try sealing.seal(
        plaintext, associatedData: aad, nonce: bytes(hex: vector.sealNonce))
      #expect(hex(sealed) == vector.sealed)
      #expect(try sealing.open(bytes(hex: vector.sealed), associatedData: aad) == plaintext)
    }
  }

  @Test func syncKeyTextReadsBackDespiteCaseSpacesDashesAndLookAlikes() throws {
    for vector in vectors {
      let key = try folderKey(vector)
      let plain = vector.syncKey.replacingOccurrences(of: "-", with: "")
      for variant in [
        vector.syncKey, vector.syncKey.lowercased(), plain, "  " + plain + "\n",
        vector.syncKey.replacingOccurrences(of: "-", with: " "),
        vector.syncKey.replacingOccurrences(of: "-", with: "\u{2013}"),
        vector.syncKey.replacingOccurrences(of: "0", with: "o").replacingOccurrences(
          of: "1", with: "l"),
        vector.syncKey.replacingOccurrences(of: "1", with: "I"),
      ] {
        #expect(try SyncKeyText.parse(variant) == key)
      }
    }
  }

  @Test func everySingleCharacterTypoIsCaught() throws {
    let text = Array(vectors[3].syncKey.replacingOccurrences(of: "-", with: ""))
    for position in text.indices {
      for replacement in SyncKeyText.alphabet.map({ Character(Unicode.Scalar($0)) })
      where replacement != text[position] {
        var typo = text
        typo[position] = replacement
        #expect(throws: SyncKeyError.checksumMismatch, "position \(position)") {
          try SyncKeyText.parse(String(typo))
        }
      }
    }
    for position in 0..<(text.count - 1) where text[position] != text[position + 1] {
      var swapped = text
      swapped.swapAt(position, position + 1)
      #expect(throws: SyncKeyError.checksumMismatch, "swap at \(position)") {
        try SyncKeyText.parse(String(swapped))
      }
    }
  }

  @Test func malformedTextIsRefusedWithAReasonThatNeverEchoesIt() {
    let good = vectors[0].syncKey
    let cases: [(String, SyncKeyError)] = [
      ("", .empty),
      (" - -\n", .empty),
      (String(good.dropLast(6)), .wrongLength(found: 55)),
      (good + "-7", .wrongLength(found: 61)),
      ("U" + good.dropFirst(), .invalidCharacter(position: 1)),
      (String(good.prefix(12)) + "#" + good.dropFirst(13), .invalidCharacter(position: 11)),
      (String(good.prefix(12)) + "\u{E9}" + good.dropFirst(13), .invalidCharacter(position: 11)),
    ]
    for (text, error) in cases {
      #expect(throws: error) { try SyncKeyText.parse(text) }
      let message = error.description
      for group in good.split(separator: "-") {
        #expect(!message.contains(group), "'\(message)' shows part of the key")
      }
    }
    // Character 52 (the second of group 11) carries the key's last bit and four zero bits:
    // setting a padding bit leaves the key bytes and so the check as they were.
    var padded = Array(good)
    #expect(padded[61] == "0" || padded[61] == "G")
    padded[61] = padded[61] == "0" ? "1" : "H"
    #expect(throws: SyncKeyError.checksumMismatch) { try SyncKeyText.parse(String(padded)) }
  }

  @Test func keysDescribeThemselvesWithoutTheirBytes() throws {
    let key = try folderKey(vectors[0])
    let secrets = [vectors[0].key, vectors[0].syncKey] + vectors[0].subkeys.values
    var dumped = ""
    dump(key, to: &dumped)
    dump(key.sealingKey(for: .segments), to: &dumped)
    dump(key.subkey(for: .photos), to: &dumped)
    let texts = [
      "\(key)", String(reflecting: key), "\(key.subkey(for: .segments))",
      String(reflecting: key.subkey(for: .photos)), "\(key.sealingKey(for: .segments))",
      "\(key.photoNamingKey)", dumped, "\([key])",
    ]
    for text in texts {
      for secret in secrets {
        #expect(!text.lowercased().contains(secret.prefix(16).lowercased()), "\(text)")
      }
    }
    #expect("\(key)" == "FolderKey(id: \(vectors[0].keyID), redacted)")
    #expect(dumped.contains("redacted") || dumped.contains(vectors[0].keyID))
  }

  @Test func keyIDsParseAndSubkeysDiffer() throws {
    let key = try FolderKey.random()
    #expect(KeyID(hex: key.id.hex) == key.id)
    #expect(KeyID(hex: key.id.hex.uppercased()) == key.id)
    #expect(KeyID(hex: "xyz") == nil)
    #expect(KeyID(hex: String(repeating: "g", count: 16)) == nil)
    let subkeys = KeyPurpose.allCases.map { key.subkey(for: $0) }
    #expect(Set(subkeys.map { $0.withUnsafeBytes { hex($0) } }).count == subkeys.count)
    #expect(try FolderKey.random() != key)
    #expect(try SyncKeyText.parse(key.syncKeyText) == key)
  }

  @Test func sealingUsesAFreshNonceAndBindsTheAssociatedData() throws {
    let sealing = try FolderKey.random().sealingKey(for: .segments)
    let message = Array("Koleston 7/1".utf8)
    let first = try sealing.seal(message, associatedData: Array("device A 7".utf8))
    let second = try sealing.seal(message, associatedData: Array("device A 7".utf8))
    #expect(first.count == message.count + SealingKey.overhead)
    #expect(first.prefix(24) != second.prefix(24))
    #expect(try sealing.open(first, associatedData: Array("device A 7".utf8)) == message)
    #expect(throws: CryptoError.authenticationFailed) {
      try sealing.open(first, associatedData: Array("device A 8".utf8))
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try FolderKey.random().sealingKey(for: .segments).open(
        first, associatedData: Array("device A 7".utf8))
    }
    #expect(throws: CryptoError.sealedMessageTooShort(byteCount: 39, minimum: 40)) {
      try sealing.open(Array(first.prefix(39)))
    }
  }
}
