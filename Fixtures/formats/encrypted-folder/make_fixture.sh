#!/bin/sh
# Writes an encrypted shared folder like this one (with new random keys) into $1, using the
# stash binary at $2 (.build/debug/stash): A turns encryption on, adds an item with a photo
# and syncs; B joins with the sync key, consumes one and syncs; A rotates the key, adds a
# second item and syncs. The committed copy was made this way; EncryptedFixtureTests reads it.
set -e
out=$1; stash=$2
mkdir -p "$out/work/cloud"; cd "$out/work"
export STASH_NOW=1764441600 NO_COLOR=1
python3 -c "import random; r = random.Random(7); open('photo.bin', 'wb').write(bytes(r.randrange(256) for _ in range(300)))"
STASH_HOME=$PWD/a "$stash" sync enable --cloud cloud --encrypt > a.txt
grep -o '[0-9A-Z]\{5\}\(-[0-9A-Z]\{5\}\)\{11\}' a.txt > first-key.txt
STASH_HOME=$PWD/a "$stash" add "Koleston 7/1" --quantity 5 --notes "Behind the dryer" --photo photo.bin
STASH_HOME=$PWD/a "$stash" sync
STASH_HOME=$PWD/b "$stash" sync enable --cloud cloud --key-file first-key.txt
STASH_HOME=$PWD/b "$stash" sync
STASH_HOME=$PWD/b "$stash" consume "Koleston 7/1"
STASH_HOME=$PWD/b "$stash" sync
STASH_HOME=$PWD/a "$stash" sync rotate-key > /dev/null
STASH_HOME=$PWD/a "$stash" add "Wella Blondor" --quantity 2
STASH_HOME=$PWD/a "$stash" sync
cp -R cloud photo.bin first-key.txt "$out/"
cp a/sync-keys "$out/sync-keys.txt"
