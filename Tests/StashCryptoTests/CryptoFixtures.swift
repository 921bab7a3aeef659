import Foundation
import StashTestSupport

/// The bytes of a hex string from a fixture (lowercase or uppercase, even length).
func bytes(hex: String) -> [UInt8] {
  let digits = Array(hex.utf8)
  precondition(digits.count % 2 == 0, "odd hex length in a fixture")
  return stride(from: 0, to: digits.count, by: 2).map { index in
    UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)!
  }
}

/// The lowercase hex of some bytes.
func hex(_ bytes: some Sequence<UInt8>) -> String {
  bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// Decodes a JSON fixture below `Fixtures/crypto/`.
func cryptoFixture<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
  try JSONDecoder().decode(T.self, from: Data(try Fixtures.bytes("crypto/" + name)))
}

/// `Fixtures/crypto/rfc-vectors.json`, written by `rfc_vectors.py` from the RFC texts.
struct RFCVectors: Decodable {
  struct QuarterRound: Decodable {
    var name: String
    var input: [UInt32]
    var output: [UInt32]
  }
  struct Block: Decodable {
    var name: String
    var key: String
    var nonce: String
    var counter: UInt32
    var keystream: String
  }
  struct Encryption: Decodable {
    var name: String
    var key: String
    var nonce: String
    var counter: UInt32
    var plaintext: String
    var ciphertext: String
  }
  struct ChaCha: Decodable {
    var quarterRound: [QuarterRound]
    var stateQuarterRound: QuarterRound
    var block: [Block]
    var encrypt: [Encryption]
  }
  struct MAC: Decodable {
    var name: String
    var key: String
    var message: String
    var tag: String
  }
  struct KeyGeneration: Decodable {
    var name: String
    var key: String
    var nonce: String
    var oneTimeKey: String
  }
  struct AEAD: Decodable {
    var name: String
    var key: String
    var nonce: String
    var aad: String
    var plaintext: String
    var ciphertext: String
    var tag: String
  }
  struct HChaCha: Decodable {
    var name: String
    var key: String
    var nonce: String
    var subkey: String
  }
  struct XStream: Decodable {
    var name: String
    var key: String
    var nonce: String
    var counter: UInt32
    var plaintext: String
    var keystream: String
    var ciphertext: String
  }
  struct XChaCha: Decodable {
    var hchacha20: [HChaCha]
    var stream: [XStream]
    var aead: [AEAD]
  }
  struct HMAC: Decodable {
    var name: String
    var key: String
    var message: String
    var mac: String
  }
  struct HKDF: Decodable {
    var name: String
    var ikm: String
    var salt: String
    var info: String
    var length: Int
    var prk: String
    var okm: String
  }
  var chacha20: ChaCha
  var poly1305: [MAC]
  var poly1305KeyGeneration: [KeyGeneration]
  var chacha20Poly1305: [AEAD]
  var xchacha20: XChaCha
  var hmacSHA256: [HMAC]
  var hkdfSHA256: [HKDF]

  static func load() throws -> RFCVectors {
    try cryptoFixture("rfc-vectors.json", as: RFCVectors.self)
  }
}

/// `Fixtures/crypto/cross-check.json`, written by `cross_check.py` with pyca/cryptography.
struct CrossCheckVectors: Decodable {
  struct AEAD: Decodable {
    var seed: UInt64
    var length: Int
    var head: String
    var key: String
    var nonce: String
    var aad: String
    var tag: String
    var ciphertextSHA256: String
    var ciphertext: String?
  }
  struct HMAC: Decodable {
    var seed: UInt64
    var length: Int
    var head: String
    var key: String
    var mac: String
  }
  struct HKDF: Decodable {
    var ikm: String
    var salt: String
    var info: String
    var length: Int
    var okm: String
  }
  var chacha20Poly1305: [AEAD]
  var xchacha20Poly1305: [AEAD]
  var hmacSHA256: [HMAC]
  var hkdfSHA256: [HKDF]

  static func load() throws -> CrossCheckVectors {
    try cryptoFixture("cross-check.json", as: CrossCheckVectors.self)
  }
}
