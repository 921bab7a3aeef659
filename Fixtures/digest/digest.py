#!/usr/bin/env python3
"""Recomputes the inventory digest (Fixtures/README.md, section 5) of the entries in
vectors.json and prints it; `python3 digest.py` must print the same digests as the file."""
import hashlib, json, struct, sys

def h(b): return hashlib.sha256(b).digest()
def length(text):
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data

def digest(entries):
    models = {}
    for e in entries:
        leaf = h(b"\x01L" + length(e["id"]) + (b"\x01" if e["tombstone"] else b"\x00")
                 + bytes.fromhex(e["hash"]))
        bucket = h(e["id"].encode("utf-8"))[0]
        models.setdefault(e["model"], [dict() for _ in range(256)])[bucket][e["id"].encode("utf-8")] = leaf
    roots = {}
    for model, buckets in models.items():
        hashes = b"".join(h(b"\x01B" + b"".join(b[k] for k in sorted(b))) for b in buckets)
        roots[model] = h(b"\x01M" + length(model) + hashes)
    overall = h(b"\x01D" + b"".join(length(m) + roots[m]
                                     for m in sorted(roots, key=lambda m: m.encode("utf-8"))))
    return overall.hex(), {m: r.hex() for m, r in roots.items()}

if __name__ == "__main__":
    cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "vectors.json"))
    ok = True
    for case in cases:
        overall, models = digest(case["entries"])
        same = overall == case["overall"] and models == case["models"]
        ok = ok and same
        print(("ok  " if same else "BAD ") + case["name"] + " " + overall)
    sys.exit(0 if ok else 1)
