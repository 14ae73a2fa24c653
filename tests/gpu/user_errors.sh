#!/bin/sh
# tests/gpu/user_errors.sh: the errors a user makes with a kernel of their
# own, on a GPU (issue 34; tests/e2e/38_user_kernel.sh checks the same on
# the CPU backend): a wrong element (mismatch naming it), a flag never
# raised (timeout naming the flag), a source that does not compile (the
# compiler's message and the configuration, stored as failed), a launch
# past the GPU's limits (invalid with the limit). World 1, one GPU, the
# GPU forms of tests/e2e/user/bad.cu and broken.cu through NVRTC.
#   OUT=/some/dir sh tests/gpu/user_errors.sh     (build/cuda carried)
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_DB=$OUT/user_errors.db
rm -f "$FGOBENCH_DB"
T=$(mktemp -d)
cp tests/e2e/user/bad.c tests/e2e/user/bad.cu tests/e2e/user/broken.c tests/e2e/user/broken.cu "$T/"
man() { # NAME SOURCE ENTRY TUNABLES [BLOCK SMEM]
	printf '{ "name": "%s", "family": "all_scatter", "source": { "c": "%s.c", "gpu": "%s.cu" },\n  "entry": "%s", "tunables": %s, "grid": 1, "block": %s, "shared_memory": %s, "flags": 1 }\n' \
		"$1" "$2" "$2" "$3" "$4" "${5:-128}" "${6:-0}" >"$T/$1.json"
}
man bad bad bad '{ "BUG": [1] }'
man silent bad bad '{ "BUG": [2] }'
man broken broken broken '{ "BUG": [1] }'
man huge bad bad '{ "BUG": [0], "THREADS": [64, 2048], "SMEM": [0, 300000] }' '"THREADS"' '"SMEM"'
for k in bad silent broken huge; do
	echo "== user:$k"
	NP=1 sh "$here/run.sh" sweep tests/e2e/user/w1.json --kernel "$T/$k.json" --timeout 0.5 >"$OUT/user-$k.log" 2>&1
	echo "exit $?"
	grep -E "does not compile|undeclared|invalid|mismatch|timeout|gave up" "$OUT/user-$k.log" | head -n 4
done
python3 - "$FGOBENCH_DB" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def rows(name):
    return db.execute("select status, reason from runs where algorithm = ?", ("user:" + name,)).fetchall()
checks = [
    ("wrong element: mismatch naming C[3][5]", all(s == "mismatch" and "C[3][5]" in (r or "") for s, r in rows("bad")) and rows("bad")),
    ("flag never raised: timeout naming flag 0", all(s == "timeout" and "flag 0" in (r or "") for s, r in rows("silent")) and rows("silent")),
    ("no compile: failed, the compiler's message", all(s == "failed" and "undeclared_name" in (r or "") for s, r in rows("broken")) and rows("broken")),
    ("past the limits: 3 invalid with the limit, 1 ok",
     sorted(s for s, _ in rows("huge")) == ["invalid", "invalid", "invalid", "ok"]
     and sum(1 for s, r in rows("huge") if s == "invalid" and ("1024" in (r or "") or "shared memory" in (r or ""))) == 3),
]
bad = 0
for what, ok in checks:
    print(("PASS " if ok else "FAIL ") + what)
    bad += not ok
for name in ("bad", "silent", "broken", "huge"):
    for s, r in rows(name):
        print("  user:%s %s: %s" % (name, s, (r or "")[:160]))
sys.exit(1 if bad else 0)
PY
