"""Writes cross-check.json: vectors from an independent implementation (pyca/cryptography).

Run once from the repository root (the output is committed; the tests need no Python):

    pip install cryptography
    python3 Fixtures/crypto/cross_check.py

Messages are not stored: a message of `length` bytes is SeededRandom(seed).bytes(length)
from Sources/StashTestSupport/SeededRandom.swift (SplitMix64, each 64-bit output's bytes
least significant first; `seeded_bytes` below), and `head` is its first 16 bytes, so a
changed generator shows as such. Ciphertexts are stored whole up to 512 bytes and otherwise
as their SHA-256; keys, nonces, associated data and tags are stored as hex.

`cryptography` has ChaCha20-Poly1305 but no XChaCha20-Poly1305, so the XChaCha vectors take
the HChaCha20 subkey from OpenSSL's ChaCha20 block function (the 20 rounds' output is the
block minus its input words, which HChaCha20 returns for words 0-3 and 12-15, the piece
that RFC 8439 and the draft's 2.2.1 vector test) and seal with OpenSSL's ChaCha20-Poly1305
under that subkey and the nonce's last 8 bytes, as draft-irtf-cfrg-xchacha-03 specifies.
"""

import hashlib
import json
import random

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MASK = (1 << 64) - 1
EDGES = [0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097, 70000]


def seeded_bytes(seed, count):
    """The bytes SeededRandom(seed:).bytes(count) returns (SplitMix64, little-endian)."""
    state, out = seed, bytearray()
    while len(out) < count:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out += z.to_bytes(8, "little")
    return bytes(out[:count])


def hchacha20(key, nonce16):
    counter, nonce = nonce16[:4], nonce16[4:]
    block = Cipher(algorithms.ChaCha20(key, counter + nonce), None).encryptor().update(b"\0" * 64)
    words = [int.from_bytes(block[4 * i : 4 * i + 4], "little") for i in range(16)]
    start = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    start += [int.from_bytes(nonce16[4 * i : 4 * i + 4], "little") for i in range(4)]
    picked = [(w - s) % 2**32 for w, s in zip(words[0:4] + words[12:16], start)]
    return b"".join(w.to_bytes(4, "little") for w in picked)


def lengths(rng, count):
    return EDGES + [rng.randrange(0, 70001) for _ in range(count - len(EDGES))]


def aead_vectors(rng, first_seed, nonce_length):
    out = []
    for index, length in enumerate(lengths(rng, 32)):
        seed = first_seed + index
        key, nonce = rng.randbytes(32), rng.randbytes(nonce_length)
        aad = rng.randbytes(rng.choice([0, 1, 12, 13, 16, 17, rng.randrange(0, 300)]))
        message = seeded_bytes(seed, length)
        if nonce_length == 12:
            sealed = ChaCha20Poly1305(key).encrypt(nonce, message, aad)
        else:
            inner = b"\0" * 4 + nonce[16:]
            sealed = ChaCha20Poly1305(hchacha20(key, nonce[:16])).encrypt(inner, message, aad)
        ciphertext, tag = sealed[:-16], sealed[-16:]
        vector = {"seed": seed, "length": length, "head": message[:16].hex(), "key": key.hex(),
                  "nonce": nonce.hex(), "aad": aad.hex(), "tag": tag.hex(),
                  "ciphertextSHA256": hashlib.sha256(ciphertext).hexdigest()}
        if length <= 512:
            vector["ciphertext"] = ciphertext.hex()
        out.append(vector)
    return out


def hmac_vectors(rng):
    out = []
    for index, length in enumerate(lengths(rng, 32)):
        seed = 3000 + index
        key = rng.randbytes(rng.choice([0, 1, 32, 63, 64, 65, 200, rng.randrange(0, 150)]))
        message = seeded_bytes(seed, length)
        mac = hmac.HMAC(key, hashes.SHA256())
        mac.update(message)
        out.append({"seed": seed, "length": length, "head": message[:16].hex(),
                    "key": key.hex(), "mac": mac.finalize().hex()})
    return out


def hkdf_vectors(rng):
    out = []
    for _ in range(32):
        ikm = rng.randbytes(rng.randrange(0, 100))
        salt = rng.randbytes(rng.choice([0, 32, rng.randrange(0, 100)]))
        info = rng.randbytes(rng.randrange(0, 60))
        length = rng.choice([1, 16, 31, 32, 33, 64, 8160, rng.randrange(1, 600)])
        okm = HKDF(hashes.SHA256(), length, salt or None, info).derive(ikm)
        out.append({"ikm": ikm.hex(), "salt": salt.hex(), "info": info.hex(),
                    "length": length, "okm": okm.hex()})
    return out


if __name__ == "__main__":
    rng = random.Random(25)
    document = {
        "generator": "Fixtures/crypto/cross_check.py with pyca/cryptography",
        "chacha20Poly1305": aead_vectors(rng, 1000, 12),
        "xchacha20Poly1305": aead_vectors(rng, 2000, 24),
        "hmacSHA256": hmac_vectors(rng),
        "hkdfSHA256": hkdf_vectors(rng),
    }
    with open("Fixtures/crypto/cross-check.json", "w") as out:
        json.dump(document, out, indent=1, sort_keys=True)
        out.write("\n")
