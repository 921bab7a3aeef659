"""Reads an encrypted Stash shared folder without Stash: checks zone.json against the keys,
opens every segment and photo, and prints what they hold (Fixtures/README.md, section 7).

Standard library plus `cryptography` (pip install cryptography):

    python3 Fixtures/crypto/open_folder.py SHARED_FOLDER KEY_FILE [PHOTO_OUTPUT_FOLDER]

KEY_FILE holds sync keys, one a line (a saved sync key, or a device's `sync-keys` file);
blank lines and lines starting with `#` are ignored. Each segment is printed as its plain
format-3 text (a header line, then one mirror version a line); photos are written to
PHOTO_OUTPUT_FOLDER under their SHA-256 when it is given.
"""

import hashlib
import hmac
import json
import os
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def parse_sync_key(text):
    """The 32 key bytes of a sync key (section 6), after checking its 8 check characters."""
    text = text.upper().replace("O", "0").replace("I", "1").replace("L", "1")
    values = [ALPHABET.index(c) for c in text if c not in " \t-"]
    if len(values) != 60:
        raise ValueError("a sync key has 60 characters")
    bits = 0
    for value in values[:52]:
        bits = bits << 5 | value
    key = (bits >> 4).to_bytes(32, "big")
    check = 0
    for value in values[52:]:
        check = check << 5 | value
    if bits & 15 or hashlib.sha256(b"stash sync key v1" + key).digest()[:5] != check.to_bytes(5, "big"):
        raise ValueError("the sync key's check does not match")
    return key


def expand(key, label, length=32):
    """HKDF-SHA256 of the folder key with an empty salt, under an ASCII label."""
    prk = hmac.new(b"", key, hashlib.sha256).digest()
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


def open_sealed(key, sealed, aad):
    """Opens nonce (24) || ciphertext || tag (16); raises InvalidTag when it does not open."""
    nonce, body = sealed[:24], sealed[24:]
    return ChaCha20Poly1305(hchacha20(key, nonce[:16])).decrypt(b"\0" * 4 + nonce[16:], body, aad)


class Key:
    def __init__(self, folder_key):
        self.id = expand(folder_key, b"stash folder key v1: key id", 8)
        self.segments = expand(folder_key, b"stash folder key v1: segments")
        self.photos = expand(folder_key, b"stash folder key v1: photos")
        self.photo_names = expand(folder_key, b"stash folder key v1: photo names")


def read_keys(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    keys = [Key(parse_sync_key(line.strip())) for line in lines if line.strip() and not line.strip().startswith("#")]
    return {key.id.hex(): key for key in keys}


def check_zone(folder, keys):
    zone_file = json.load(open(os.path.join(folder, "zone.json"), encoding="utf-8"))
    assert zone_file["format"] == "stash.zone" and zone_file["version"] == 2, "not an encrypted folder"
    zone, encryption = zone_file["zone"], zone_file["encryption"]
    key = keys[encryption["key"]]
    aad = f"stash.zone:{zone}:{encryption['key']}".encode()
    assert open_sealed(key.segments, bytes.fromhex(encryption["check"]), aad) == zone.encode()
    announced = os.path.join(folder, "keys")
    for name in sorted(os.listdir(announced)) if os.path.isdir(announced) else []:
        later = json.load(open(os.path.join(announced, name), encoding="utf-8"))
        if later["key"] in keys and name == later["key"] + ".json" and later["zone"] == zone:
            aad = f"stash.key:{zone}:{later['key']}".encode()
            key = keys[later["key"]]
            assert open_sealed(key.segments, bytes.fromhex(later["check"]), aad) == zone.encode()
            aad = f"stash.key.retired:{zone}:{later['key']}".encode()
            retired = open_sealed(key.segments, bytes.fromhex(later["retired"]), aad)
            print(f"# key {later['key']} retires {retired.decode()}")
        if later.get("previous") in keys:
            aad = f"stash.key.proof:{zone}:{later['previous']}:{later['key']}".encode()
            proof = open_sealed(keys[later["previous"]].segments, bytes.fromhex(later["proof"]), aad)
            assert proof == later["key"].encode()
            print(f"# key {later['key']} was made by a holder of key {later['previous']}")
    return zone


def open_segment(path, relative, zone, keys):
    data = open(path, "rb").read()
    newline = data.index(b"\n")
    header = json.loads(data[:newline])["segment"]
    assert header["format"] == "stash.segment" and header["version"] == 4, "not a sealed segment"
    sealed = data[newline + 1 :]
    assert len(sealed) == header["sealed"], "cut short (still arriving) or too long"
    folder_device, name = relative.split("/")[1:3]
    assert header["zone"] == zone and header["device"] == folder_device, "moved"
    assert int(name.split(".")[0].split(" ")[0]) == header["sequence"], "replayed under another name"
    if header["key"] not in keys:
        return None
    plain = open_sealed(keys[header["key"]].segments, sealed, data[: newline + 1])
    inner = json.loads(plain[: plain.index(b"\n")])["segment"]
    for field in ("zone", "device", "sequence"):
        assert inner[field] == header[field], "sealed header differs from the outer one"
    return plain.decode("utf-8")


def main():
    folder, key_path = sys.argv[1], sys.argv[2]
    output = sys.argv[3] if len(sys.argv) > 3 else None
    keys = read_keys(key_path)
    zone = check_zone(folder, keys)
    print(f"# zone {zone}, keys {', '.join(keys)}")
    photos = {}
    devices = os.path.join(folder, "devices")
    for device in sorted(os.listdir(devices)):
        for name in sorted(os.listdir(os.path.join(devices, device))):
            if name.startswith((".", "~")) or not name.endswith(".jsonl"):
                continue
            relative = f"devices/{device}/{name}"
            print(f"# {relative}")
            text = open_segment(os.path.join(folder, relative), relative, zone, keys)
            if text is None:
                print("# (sealed with a key KEY_FILE does not hold)")
                continue
            print(text, end="")
            for line in text.splitlines()[1:]:
                snapshot = json.loads(line)["snapshot"]
                photo = (snapshot.get("fields") or {}).get("photo")
                if isinstance(photo, dict) and "sha256" in photo:
                    photos[photo["sha256"]] = photo["size"]
    for digest, size in sorted(photos.items()):
        for key in keys.values():
            name = hmac.new(key.photo_names, bytes.fromhex(digest), hashlib.sha256).hexdigest()
            path = os.path.join(folder, "blobs", name)
            if not os.path.exists(path):
                continue
            data = open(path, "rb").read()
            assert len(data) == size + 48 and data[:8] == key.id
            photo = open_sealed(key.photos, data[8:], key.id + bytes.fromhex(digest))
            assert hashlib.sha256(photo).hexdigest() == digest
            print(f"# photo {digest}: {size} bytes, sealed as blobs/{name}")
            if output:
                os.makedirs(output, exist_ok=True)
                open(os.path.join(output, digest), "wb").write(photo)
            break


if __name__ == "__main__":
    main()
