# Computes Fixtures/snapshots/bytes-vectors.json independently of the Swift code
# (Fixtures/README.md, section 2.1: the bytes value).
import base64, hashlib, json, struct

def s(text): b = text.encode(); return struct.pack(">I", len(b)) + b
def by(b): return b"x" + struct.pack(">I", len(b)) + b

RID = "3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f"
schema = [("data", "bytes"), ("empty", "optional(bytes)"), ("absent", "optional(bytes)"),
          ("text", "string")]
data = bytes([0x00, 0xFF, 0xFE, 0x80, 0x41, 0xC3])   # not UTF-8
values = {"data": data, "empty": b"", "absent": None, "text": "x"}

out = b"\x01R" + s("sample") + s(RID) + struct.pack(">I", len(schema))
for name, kind in schema:
    v = values[name]
    out += s(name)
    if kind.startswith("optional("):
        out += b"\x00" if v is None else b"\x01" + by(v)
    elif kind == "bytes":
        out += by(v)
    else:
        out += b"s" + s(v)
fields = {n: (base64.b64encode(v).decode() if isinstance(v, bytes) else v) for n, v in values.items()}
vector = {
  "name": "bytes",
  "schema": [{"name": n, "type": k, "deviceLocal": False} for n, k in schema],
  "snapshot": {"kind": "record", "model": "sample", "id": RID, "fields": fields},
  "canonical": out.hex(),
  "hash": hashlib.sha256(out).hexdigest(),
}
print(json.dumps([vector], indent=2))
