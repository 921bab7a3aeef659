"""Writes folder-key.json: the sync key text, key id, subkeys, photo names and a sealed
message for a few fixed folder keys, computed from Fixtures/README.md section 6 alone.

Run once from the repository root (standard library plus `cryptography` for the seal):

    python3 Fixtures/crypto/folder_key.py
"""

import hashlib
import hmac
import json

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LABELS = {
    "segments": b"stash folder key v1: segments",
    "photos": b"stash folder key v1: photos",
    "photoNames": b"stash folder key v1: photo names",
}


def sync_key_text(key):
    check = hashlib.sha256(b"stash sync key v1" + key).digest()[:5]
    key_bits = int.from_bytes(key, "big") << 4  # 260 bits: 52 characters
    check_bits = int.from_bytes(check, "big")  # 40 bits: 8 characters
    chars = [ALPHABET[(key_bits >> (5 * (51 - i))) & 31] for i in range(52)]
    chars += [ALPHABET[(check_bits >> (5 * (7 - i))) & 31] for i in range(8)]
    return "-".join("".join(chars[i : i + 5]) for i in range(0, 60, 5))


def expand(key, label, length):
    prk = hmac.new(b"", key, hashlib.sha256).digest()  # HKDF-Extract, empty salt
    out, previous, counter = b"", b"", 1
    while len(out) < length:
        previous = hmac.new(prk, previous + label + bytes([counter]), hashlib.sha256).digest()
        out += previous
        counter += 1
    return out[:length]


def hchacha20(key, nonce16):
    block = Cipher(algorithms.ChaCha20(key, nonce16), None).encryptor().update(b"\0" * 64)
    words = [int.from_bytes(block[4 * i : 4 * i + 4], "little") for i in range(16)]
    start = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    start += [int.from_bytes(nonce16[4 * i : 4 * i + 4], "little") for i in range(4)]
    picked = [(w - s) % 2**32 for w, s in zip(words[0:4] + words[12:16], start)]
    return b"".join(w.to_bytes(4, "little") for w in picked)


def seal(key, nonce, plaintext, aad):
    """SealingKey.seal: nonce || XChaCha20-Poly1305(key, nonce, plaintext, aad)."""
    inner = ChaCha20Poly1305(hchacha20(key, nonce[:16]))
    return nonce + inner.encrypt(b"\0" * 4 + nonce[16:], plaintext, aad)


def vector(key):
    subkeys = {name: expand(key, label, 32) for name, label in LABELS.items()}
    photo = hashlib.sha256(b"abc").digest()
    nonce = bytes(range(24))
    return {
        "key": key.hex(),
        "syncKey": sync_key_text(key),
        "keyID": expand(key, b"stash folder key v1: key id", 8).hex(),
        "subkeys": {name: value.hex() for name, value in subkeys.items()},
        "photoSHA256": photo.hex(),
        "photoName": hmac.new(subkeys["photoNames"], photo, hashlib.sha256).hexdigest(),
        "sealNonce": nonce.hex(),
        "sealPlaintext": b"Koleston 7/1, 3 tubes".hex(),
        "sealAssociatedData": b"segment 42".hex(),
        "sealed": seal(subkeys["segments"], nonce, b"Koleston 7/1, 3 tubes", b"segment 42").hex(),
    }


if __name__ == "__main__":
    keys = [bytes(range(32)), b"\0" * 32, b"\xff" * 32, hashlib.sha256(b"stash").digest()]
    with open("Fixtures/crypto/folder-key.json", "w") as out:
        json.dump([vector(key) for key in keys], out, indent=1, sort_keys=True)
        out.write("\n")
