"""Transcribes the published test vectors into rfc-vectors.json, checking each one first.

Run once from the repository root:

    pip install cryptography cryptography-vectors
    python3 Fixtures/crypto/rfc_vectors.py RFC8439.txt draft-irtf-cfrg-xchacha-03.txt

RFC 8439 and the XChaCha draft are read from their plain-text editions (rfc-editor.org and
datatracker.ietf.org); RFC 4231 and RFC 5869 from the transcriptions the pyca/cryptography
project ships in the `cryptography-vectors` package, plus RFC 4231's truncated case 5, which
that package leaves out and which is written below. Every vector is checked against the
`cryptography` package (OpenSSL) or Python's `hmac` before it is written, so a transcription
error stops the script instead of reaching a fixture.
"""

import hashlib
import hmac
import json
import os
import re
import sys

import cryptography_vectors
from cryptography.hazmat.primitives import hashes, poly1305
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

DUMP = re.compile(r"^\s*[0-9a-f]{3}:?  ((?:[0-9a-f]{2} )*[0-9a-f]{2})(?:  |\s*$)")
PLAIN = re.compile(r"^\s*((?:[0-9A-Fa-f]{2} )*[0-9A-Fa-f]{2})\s*$")
COLONS = re.compile(r"^\s*((?:[0-9a-f]{2}:)*[0-9a-f]{2}):?\s*$")
HEX = re.compile(r"^\s*((?:[0-9a-f]{2}){4,})\s*$")
NOISE = re.compile(r"^(Nir & Langley|RFC 8439 |Arciszewski |Internet-Draft )")


def section(text, start, end):
    """The text between two headings (each a line that starts with it)."""
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
    return lines[first + 1 : last]


def fields(lines):
    """Label -> bytes for every 'Label:' followed by hex lines; label -> int for 'X = n'."""
    out, label = {}, None
    for line in lines:
        if not line.strip() or NOISE.match(line) or set(line.strip()) == {"="}:
            continue
        match = DUMP.match(line) or PLAIN.match(line) or COLONS.match(line) or HEX.match(line)
        if match and label is not None:
            out[label] += bytes.fromhex(re.sub("[ :]", "", match.group(1)))
            continue
        counter = re.match(r"^\s*(?:Initial )?(?:Block )?Counter(?: =|:) (\d+)\s*$", line)
        if counter:
            out["counter"] = int(counter.group(1))
            continue
        label = line.strip().rstrip(":").strip()
        out[label] = b""
    return out


def vectors(lines, marker):
    """Splits a section at each line containing `marker` (such as 'Test Vector #')."""
    groups, current = [], None
    for line in lines:
        if marker in line:
            current = []
            groups.append(current)
        elif current is not None:
            current.append(line)
    return groups


def colon_hex(text):
    return bytes.fromhex(re.sub(r"[^0-9a-f]", "", text))


def keystream(key, nonce, counter, length):
    full = counter.to_bytes(4, "little") + nonce
    return Cipher(algorithms.ChaCha20(key, full), mode=None).encryptor().update(b"\0" * length)


def check_block(v):
    assert keystream(v["key"], v["nonce"], v["counter"], 64) == v["keystream"], v


def check_encrypt(v):
    stream = keystream(v["key"], v["nonce"], v["counter"], len(v["plaintext"]))
    assert bytes(a ^ b for a, b in zip(v["plaintext"], stream)) == v["ciphertext"], v


def check_poly(v):
    assert poly1305.Poly1305.generate_tag(v["key"], v["message"]) == v["tag"], v


def check_keygen(v):
    assert keystream(v["key"], v["nonce"], 0, 32) == v["oneTimeKey"], v


def check_aead(v):
    sealed = ChaCha20Poly1305(v["key"]).encrypt(v["nonce"], v["plaintext"], v["aad"])
    assert sealed == v["ciphertext"] + v["tag"], v


def hchacha20(key, nonce16):
    """HChaCha20 from OpenSSL's ChaCha20 block: the rounds' output is the block minus its input."""
    block = keystream(key, nonce16[4:], int.from_bytes(nonce16[:4], "little"), 64)
    words = [int.from_bytes(block[4 * i : 4 * i + 4], "little") for i in range(16)]
    start = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    start += [int.from_bytes(nonce16[4 * i : 4 * i + 4], "little") for i in range(4)]
    picked = [(w - s) % 2**32 for w, s in zip(words[0:4] + words[12:16], start)]
    return b"".join(w.to_bytes(4, "little") for w in picked)


def rfc8439(text):
    out = {k: [] for k in ["quarterRound", "block", "encrypt", "poly1305", "keygen", "aead"]}
    # 2.1.1 and 2.2.1: the quarter round, on four words and on a state.
    qr = section(text, "2.1.1.", "2.2.  ")
    words = [int(m, 16) for m in re.findall(r"= 0x([0-9a-f]{8})", "\n".join(qr))]
    out["quarterRound"].append({"name": "RFC 8439 2.1.1", "input": words[:4], "output": words[4:]})
    state = section(text, "2.2.1.", "2.3.  ")
    words = [int(m, 16) for m in re.findall(r"\*?\b([0-9a-f]{8})\b", "\n".join(state))]
    out["stateQuarterRound"] = {"name": "RFC 8439 2.2.1", "indices": [2, 7, 8, 13],
                                "input": words[:16], "output": words[16:32]}
    # 2.3.2: the block function.
    s = "\n".join(section(text, "2.3.2.", "2.4.  "))
    f = fields(section(text, "2.3.2.", "2.4.  "))
    key = colon_hex(re.search(r"Key = ([0-9a-f:\s]+)\.", s).group(1))
    nonce = colon_hex(re.search(r"Nonce = \(([0-9a-f:]+)\)", s).group(1))
    out["block"].append({"name": "RFC 8439 2.3.2", "key": key, "nonce": nonce, "counter": 1,
                         "keystream": f["Serialized Block"]})
    # 2.4.2: encryption.
    s = "\n".join(section(text, "2.4.2.", "2.5.  "))
    f = fields(section(text, "2.4.2.", "2.5.  "))
    out["encrypt"].append({
        "name": "RFC 8439 2.4.2", "counter": 1,
        "key": colon_hex(re.search(r"Key = ([0-9a-f:\s]+)\.", s).group(1)),
        "nonce": colon_hex(re.search(r"Nonce = \(([0-9a-f:]+)\)", s).group(1)),
        "plaintext": f["Plaintext Sunscreen"], "ciphertext": f["Ciphertext Sunscreen"]})
    # 2.5.2: Poly1305.
    s = "\n".join(section(text, "2.5.2.", "2.6.  "))
    f = fields(section(text, "2.5.2.", "2.6.  "))
    material = re.search(r"Key Material: ([0-9a-f:\s]+?)\n\s*\n", s).group(1)
    out["poly1305"].append({"name": "RFC 8439 2.5.2", "key": colon_hex(material),
                            "message": f["Message to be Authenticated"],
                            "tag": colon_hex(re.search(r"Tag: ([0-9a-f:]+)", s).group(1))})
    # 2.6.2: the one-time key.
    f = fields(section(text, "2.6.2.", "2.7.  "))
    out["keygen"].append({"name": "RFC 8439 2.6.2", "key": f["Key"], "nonce": f["Nonce"],
                          "oneTimeKey": f["Output bytes"]})
    # 2.8.2: the AEAD.
    f = fields(section(text, "2.8.2.", "3.  "))
    out["aead"].append({"name": "RFC 8439 2.8.2", "key": f["Key"],
                        "nonce": f["32-bit fixed-common part"] + f["IV"], "aad": f["AAD"],
                        "plaintext": f["Plaintext"], "ciphertext": f["Ciphertext"],
                        "tag": f["Tag"]})
    # Appendix A.
    for n, lines in enumerate(vectors(section(text, "A.1.  ", "A.2.  "), "Test Vector #"), 1):
        f = fields(lines)
        out["block"].append({"name": f"RFC 8439 A.1 #{n}", "key": f["Key"], "nonce": f["Nonce"],
                             "counter": f["counter"], "keystream": f["Keystream"]})
    for n, lines in enumerate(vectors(section(text, "A.2.  ", "A.3.  "), "Test Vector #"), 1):
        f = fields(lines)
        out["encrypt"].append({"name": f"RFC 8439 A.2 #{n}", "key": f["Key"], "nonce": f["Nonce"],
                               "counter": f["counter"], "plaintext": f["Plaintext"],
                               "ciphertext": f["Ciphertext"]})
    for n, lines in enumerate(vectors(section(text, "A.3.  ", "A.4.  "), "Test Vector #"), 1):
        f = fields(lines)
        key = f.get("One-time Poly1305 Key") or f["R"] + f["S"]
        message = f.get("Text to MAC", f.get("data"))
        out["poly1305"].append({"name": f"RFC 8439 A.3 #{n}", "key": key, "message": message,
                                "tag": f.get("Tag", f.get("tag"))})
    for n, lines in enumerate(vectors(section(text, "A.4.  ", "A.5.  "), "Test Vector #"), 1):
        f = fields(lines)
        out["keygen"].append({"name": f"RFC 8439 A.4 #{n}", "key": f["The ChaCha20 Key"],
                              "nonce": f["The nonce"], "oneTimeKey": f["Poly1305 one-time key"]})
    f = fields(section(text, "A.5.  ", "Appendix B."))
    # A.5 prints its plaintext only as text; OpenSSL decrypts it (and so checks the tag).
    plaintext = ChaCha20Poly1305(f["The ChaCha20 Key"]).decrypt(
        f["The nonce"], f["Ciphertext"] + f["Received Tag"], f["The AAD"])
    out["aead"].append({"name": "RFC 8439 A.5", "key": f["The ChaCha20 Key"],
                        "nonce": f["The nonce"], "aad": f["The AAD"], "plaintext": plaintext,
                        "ciphertext": f["Ciphertext"], "tag": f["Received Tag"]})
    for v in out["block"]:
        check_block(v)
    for v in out["encrypt"]:
        check_encrypt(v)
    for v in out["poly1305"]:
        check_poly(v)
    for v in out["keygen"]:
        check_keygen(v)
    for v in out["aead"]:
        check_aead(v)
    return out


def xchacha(text):
    out = {}
    s = "\n".join(section(text, "2.2.1.", "2.3.  "))
    key = colon_hex(re.search(r"Key = ([0-9a-f:\s]+)\.", s).group(1))
    nonce = colon_hex(re.search(r"Nonce = \(([0-9a-f:]+)\)", s).group(1))
    rows = re.findall(r"\b([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{8})\b", s)
    subkey = bytes.fromhex("".join("".join(r) for r in rows[-2:]))
    assert hchacha20(key, nonce) == subkey
    out["hchacha20"] = [{"name": "draft-irtf-cfrg-xchacha-03 2.2.1", "key": key, "nonce": nonce,
                         "subkey": subkey}]
    f = fields(section(text, "A.3.1.", "A.3.2.  "))
    v = {"name": "draft-irtf-cfrg-xchacha-03 A.3.1", "key": f["Key"], "nonce": f["IV"],
         "aad": f["AAD"], "plaintext": f["Plaintext"], "ciphertext": f["Ciphertext"],
         "tag": f["Tag"]}
    sub = hchacha20(v["key"], v["nonce"][:16])
    inner = ChaCha20Poly1305(sub).encrypt(b"\0" * 4 + v["nonce"][16:], v["plaintext"], v["aad"])
    assert inner == v["ciphertext"] + v["tag"]
    out["aead"] = [v]
    out["stream"] = []
    for name, start, end in [("A.3.2.1", "A.3.2.1.", "A.3.2.2."),
                             ("A.3.2.2", "A.3.2.2.", "Author's Address")]:
        f = fields(section(text, start, end))
        v = {"name": f"draft-irtf-cfrg-xchacha-03 {name}", "key": f["Key"], "nonce": f["IV"],
             "counter": f["counter"], "plaintext": f["Plaintext"], "keystream": f["Keystream"],
             "ciphertext": f["Ciphertext"]}
        sub = hchacha20(v["key"], v["nonce"][:16])
        stream = keystream(sub, b"\0" * 4 + v["nonce"][16:], v["counter"], len(v["plaintext"]))
        assert stream == v["keystream"]
        assert bytes(a ^ b for a, b in zip(v["plaintext"], stream)) == v["ciphertext"]
        out["stream"].append(v)
    return out


def pyca(path, start):
    """The `Key = value` records of a cryptography-vectors file; `start` begins each record."""
    records = []
    for line in open(os.path.join(os.path.dirname(cryptography_vectors.__file__), path)):
        line = line.strip()
        if line.startswith("#") or "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        if key == start:
            records.append({})
        records[-1][key] = value
    return records


def rfc4231():
    out = []
    cases = pyca("HMAC/rfc-4231-sha256.txt", "Len")
    for number, r in zip([1, 2, 3, 4, 6, 7], cases):
        key, msg, mac = (bytes.fromhex(r[k]) for k in ("Key", "Msg", "MD"))
        assert hmac.new(key, msg, hashlib.sha256).digest() == mac
        out.append({"name": f"RFC 4231 4.{number + 1}", "key": key, "message": msg, "mac": mac})
    # Test case 5 (section 4.6): the output truncated to 128 bits.
    key, msg = b"\x0c" * 20, b"Test With Truncation"
    mac = bytes.fromhex("a3b6167473100ee06e0c796c2955552b")
    assert hmac.new(key, msg, hashlib.sha256).digest()[:16] == mac
    out.insert(4, {"name": "RFC 4231 4.6", "key": key, "message": msg, "mac": mac})
    return out


def rfc5869():
    out = []
    for r in pyca("KDF/rfc-5869-HKDF-SHA256.txt", "COUNT"):
        if r.get("Hash") != "SHA-256":
            continue
        v = {"name": f"RFC 5869 A.{r['COUNT']}", "length": int(r["L"])}
        for key, name in [("IKM", "ikm"), ("salt", "salt"), ("info", "info"), ("PRK", "prk"),
                          ("OKM", "okm")]:
            v[name] = bytes.fromhex(r[key])
        derived = HKDF(hashes.SHA256(), v["length"], v["salt"] or None, v["info"]).derive(v["ikm"])
        assert derived == v["okm"]
        assert hmac.new(v["salt"] or b"\0" * 32, v["ikm"], hashlib.sha256).digest() == v["prk"]
        out.append(v)
    return out


def hexed(value):
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [hexed(v) for v in value]
    if isinstance(value, dict):
        return {k: hexed(v) for k, v in value.items()}
    return value


if __name__ == "__main__":
    chacha = rfc8439(open(sys.argv[1]).read())
    document = {
        "chacha20": {k: chacha[k] for k in ["quarterRound", "stateQuarterRound", "block",
                                            "encrypt"]},
        "poly1305": chacha["poly1305"],
        "poly1305KeyGeneration": chacha["keygen"],
        "chacha20Poly1305": chacha["aead"],
        "xchacha20": xchacha(open(sys.argv[2]).read()),
        "hmacSHA256": rfc4231(),
        "hkdfSHA256": rfc5869(),
    }
    counts = {
        "ChaCha20 block": len(chacha["block"]), "ChaCha20 encryption": len(chacha["encrypt"]),
        "Poly1305": len(chacha["poly1305"]), "Poly1305 key generation": len(chacha["keygen"]),
        "ChaCha20-Poly1305": len(chacha["aead"]), "HMAC-SHA256": len(document["hmacSHA256"]),
        "HKDF-SHA256": len(document["hkdfSHA256"]),
    }
    print(counts, file=sys.stderr)
    with open("Fixtures/crypto/rfc-vectors.json", "w") as out:
        json.dump(hexed(document), out, indent=1, sort_keys=True)
        out.write("\n")
