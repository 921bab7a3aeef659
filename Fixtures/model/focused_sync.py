"""The focused sync of issue 26, item 1, checked against the design model.

A device that ended a sync with nothing left to do is *sealed*. Its next sync imports what the
shared folder delivers and then runs the pass over only the records changed here since the seal
(row and tombstone edits) and the records the import added versions to. Before each such sync a
deep copy of the device runs the full pass on the same delivery, and both must end with the same
local rows, tombstones, checkpoints, conflicts, mirror versions and pending versions.

Anything else since the seal (a resolution, a copy of the folder) makes the next sync full, as in
Stash. Run: python3 focused_sync.py 3000 [--variant NAME] [--focus VARIANT]; it imports the design model
sync_model.py from STASH_MODEL_DIR (default: ../shared/model beside the repository).
  --focus skip-imported   the pass leaves out the imported records   (must be caught)
  --focus skip-touched    the pass leaves out the local edits         (must be caught)
"""
import copy, os, sys
sys.path.insert(0, os.environ.get("STASH_MODEL_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/model")))
import sync_model as M

FOCUS = sys.argv[sys.argv.index("--focus") + 1] if "--focus" in sys.argv else ""
STATS = dict(focused=0, full=0, compared=0, differ=0, unsealed_after_sync=0, imported_keys=0)
FIRST = []


def summary(d):
    return (dict(d.local), dict(d.ltomb), dict(d.basev),
            sorted((c.rid, c.state, c.sides, c.ids) for c in d.conflicts),
            {r: frozenset(vs) for r, vs in d.mirror.versions.items() if vs},
            sorted(v.vid for v in d.mirror.pending), d.key)


def wrap(name, unseal=False):
    original = getattr(M.Device, name)
    def op(self, rid, *a, **k):
        out = original(self, rid, *a, **k)
        if unseal: self.sealed = False
        else: self.touched = getattr(self, "touched", set()) | {rid}
        return out
    setattr(M.Device, name, op)

for n in ("create", "edit", "move", "recount", "delete"): wrap(n)
_resolve = M.Device.resolve
def resolve(self, *a, **k):
    self.sealed = False              # a resolution writes checkpoints and conflicts: full sync
    return _resolve(self, *a, **k)
M.Device.resolve = resolve
_clone = M.Device.clone
def clone(self, name):
    d = _clone(self, name); d.sealed = False; d.touched = set()   # a copy runs the full sync
    return d
M.Device.clone = clone


def sync(dev, cloud, rnd, deliver_all=False):
    seg_ids = [s for s in range(len(cloud.segments)) if s not in dev.read]
    if not deliver_all:
        seg_ids = [s for s in seg_ids if rnd.random() < 0.7]
        rnd.shuffle(seg_ids)
    imported = set()
    for s in seg_ids:
        for v in cloud.segments[s][1]:
            if dev.mirror.add(v, pending=False): imported.add(v.snap.rid)
        dev.read.add(s)
        if not deliver_all and rnd.random() < 0.1: dev.read.discard(s)
    STATS["imported_keys"] += len(imported)
    sealed = getattr(dev, "sealed", False) and not dev.fresh
    if sealed:
        STATS["focused"] += 1
        twin = copy.deepcopy(dev); twin.reconcile()
        touched = getattr(dev, "touched", set())
        keys = touched if FOCUS == "skip-imported" else imported if FOCUS == "skip-touched" \
            else touched | imported
        for rid in sorted(keys): dev.reconcile_key(rid)
        STATS["compared"] += 1
        if summary(twin) != summary(dev):
            STATS["differ"] += 1
            if not FIRST: FIRST.append(f"{dev.name}: focused over {sorted(keys)} != full")
            dev.W.problems.append(("focused sync", f"{dev.name}: a focused sync differs from the full one"))
    else:
        STATS["full"] += 1
        dev.reconcile()
    if dev.mirror.pending:
        cloud.segments.append((dev.key, list(dev.mirror.pending))); dev.read.add(len(cloud.segments) - 1)
        dev.mirror.pending = []
    # The seal: written only when a pass now would do nothing (what Stash's clean run proves).
    probe = copy.deepcopy(dev); before = summary(probe); probe.reconcile()
    dev.sealed = summary(probe) == before and not probe.mirror.pending
    if not dev.sealed: STATS["unsealed_after_sync"] += 1
    dev.touched = set()

M.sync = sync

if __name__ == "__main__":
    args = sys.argv[1:]
    n = int(next((a for a in args if a.isdigit()), "500"))
    variant = args[args.index("--variant") + 1] if "--variant" in args else ""
    failed = 0
    for seed in range(n):
        for frozen in (False, True):
            P, _ = M.run(seed, M.Cfg(variant, frozen))
            if "focused sync" in P: failed += 1
    print(f"{n * 2} histories ({FOCUS or 'design'}): {failed} with a focused sync that differs; {STATS}")
    if FIRST: print("first:", FIRST[0])
    sys.exit(1 if failed and not FOCUS else 0)
