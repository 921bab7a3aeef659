"""Records what Python's json.loads makes of each line JSONWriter wrote.

Usage: python3 readback.py written.jsonl python-readback.jsonl

Every line of the input is read with json.loads and written out in an unambiguous, tagged
form: doubles as the hex of their IEEE 754 bit pattern, strings as the hex of their UTF-8
bytes, integers as decimal strings, objects as ordered [key, value] pairs.
"""

import json
import struct
import sys


def tag(value):
    if value is None:
        return ["null"]
    if value is True or value is False:
        return ["bool", value]
    if isinstance(value, int):
        return ["integer", str(value)]
    if isinstance(value, float):
        return ["double", "%016x" % struct.unpack("<Q", struct.pack("<d", value))[0]]
    if isinstance(value, str):
        return ["string", value.encode("utf-8").hex()]
    if isinstance(value, list):
        return ["array", [tag(item) for item in value]]
    if isinstance(value, dict):
        return ["object", [[key.encode("utf-8").hex(), tag(item)] for key, item in value.items()]]
    raise TypeError(type(value))


def main(source, destination):
    with open(source, "rb") as lines, open(destination, "w", encoding="ascii", newline="\n") as out:
        for line in lines:
            line = line.rstrip(b"\n")
            if line:
                out.write(json.dumps(tag(json.loads(line)), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
