# 93_hostile_cache.sh: a user kernel's manifest, its sources and the kernel
# cache used as an attacker would (issue 48); each attack is refused with a
# clear message, or its file compiled again, and nothing of it runs:
#   hcache-1.*  a source folder "@x" (gcc reads "@x" as a file of options:
#               x holds -wrapper) and a cache folder "@c": no command runs
#   hcache-2.*  the cache's place: no /tmp fallback (HOME unset: refused,
#               naming FGOBENCH_CACHE), then $XDG_CACHE_HOME, then ~/.cache
#   hcache-3.*  a cache another user owns (the root, a shared 1777 one,
#               user/, a planted .so) or may write (mode, a folder above
#               it): refused, naming the path and the fix
#   hcache-4.*  a cached object or header that is not what fgobench wrote
#               (a swapped .so, an edited header of the same size):
#               compiled again, never loaded
#   hcache-5.*  KEY.err: one of the old kind planted is compiled again;
#               escape bytes in a kept message reach neither the terminal
#               nor the store
#   hcache-6.*  a FIFO or a folder as manifest, source or header: exit 2 at once
#   hcache-7.*  a compile that hangs (the source includes a FIFO) stopped at
#               its limit, its temporary folder removed, the reason saying so
#   hcache-8.*  an edited header the manifest does not list: compiled again
#   hcache-9.*  a compile error said once a sweep in full (one rank or two), and
#               again from the cache
. tests/e2e/lib.sh
unset FGOBENCH_CACHE
M="$T/mark"
mkdir -p "$M"
marks() { ls "$M" | tr '\n' ' '; }
W1=$PWD/tests/e2e/user/w1.json
ESC=$(printf '\033')
# sweep KERNEL [ENV...]: the world-1 spec with --kernel, under mpirun -np 1
sweep() {
	h_k=$1
	shift
	env "$@" mpirun --oversubscribe -np 1 "$FGO" sweep "$W1" --kernel "$h_k"
}
# kernel DIR NAME [BUG]: DIR/NAME.json, the correct (BUG=0) kernel of
# tests/e2e/user/bad.c under the name NAME, its source DIR/bad.c
kernel() {
	mkdir -p "$1"
	cp tests/e2e/user/bad.c "$1/"
	sed -e "s/\"name\": \"bad\"/\"name\": \"$2\"/" -e "s/\"BUG\": \[1\]/\"BUG\": [${3:-0}]/" \
		tests/e2e/user/bad.json >"$1/$2.json"
}
status_of() { sql "select status from runs where algorithm = 'user:$1' order by id desc limit 1"; }
reason_of() { sql "select reason from runs where algorithm = 'user:$1' order by id desc limit 1"; }
# has ID NAME TEXT: the last run of user:NAME has TEXT in its reason
has() {
	if reason_of "$2" | grep -qF -- "$3"; then pass "$1"; else fail "$1" "expected \"$3\" in the reason, got \"$(reason_of "$2")\""; fi
}
# a shared object whose loading runs a command: what a planted .so does
printf '#include <stdio.h>\n__attribute__((constructor)) static void evil(void) { FILE *f = fopen("%s/so", "w"); if (f) fclose(f); }\nint bad(const void *a, const void *c) { (void)a; (void)c; return 0; }\n' "$M" >"$T/evil.c"
cc -shared -fPIC -o "$T/evil.so" "$T/evil.c"
root=0
[ "$(id -u)" = 0 ] && root=1

# ---- hcache-1: no folder a user names reaches the compiler as an option ----
mkdir -p "$T/a/@x"
cp tests/e2e/user/bad.c "$T/a/@x/k.c"
printf -- '. -wrapper /bin/sh,-c,"touch %s/wrapper"\n' "$M" >"$T/a/x"
sed -e 's|"bad.c"|"@x/k.c"|' -e 's/"BUG": \[1\]/"BUG": [0]/' -e 's/"name": "bad"/"name": "at"/' \
	tests/e2e/user/bad.json >"$T/a/at.json"
(cd "$T/a" && expect_exit hcache-1.1 0 sweep at.json FGOBENCH_CACHE="$T/c1")
expect_eq hcache-1.2 "" "$(marks)"
expect_eq hcache-1.3 ok "$(status_of at)"
# a cache folder named "@c", relative: its paths go to the compiler as "./@c/..."
kernel "$T/a" atc
(cd "$T/a" && expect_exit hcache-1.4 0 sweep atc.json FGOBENCH_CACHE=@c)
expect_eq hcache-1.5 "ok 1" "$(status_of atc) $(ls "$T/a/@c/user" | grep -c '\.so$')"

# ---- hcache-2: the cache's place, never /tmp ----
kernel "$T/k2" place
tmp_cache=absent
[ -e /tmp/.cache/fgobench ] && tmp_cache=there
expect_exit hcache-2.1 1 env -u HOME -u XDG_CACHE_HOME mpirun --oversubscribe -np 1 "$FGO" sweep "$W1" \
	--kernel "$T/k2/place.json"
has hcache-2.2 place "no folder for the kernel cache: FGOBENCH_CACHE, XDG_CACHE_HOME and HOME are not set"
has hcache-2.3 place "set FGOBENCH_CACHE to a folder of your own"
if [ "$tmp_cache" = absent ]; then
	check hcache-2.4 "nothing made under /tmp/.cache" [ ! -e /tmp/.cache/fgobench ]
fi
expect_exit hcache-2.5 0 sweep "$T/k2/place.json" XDG_CACHE_HOME="$T/xdg"
expect_eq hcache-2.6 1 "$(ls "$T/xdg/fgobench/user" | grep -c '\.so$')"
# a relative XDG_CACHE_HOME is no place (the XDG rule): ~/.cache then
expect_exit hcache-2.7 0 sweep "$T/k2/place.json" XDG_CACHE_HOME=rel HOME="$T/home"
expect_eq hcache-2.8 1 "$(ls "$T/home/.cache/fgobench/user" | grep -c '\.so$')"

# ---- hcache-3: a cache that is not the user's alone is refused ----
kernel "$T/k3" owned
if [ "$root" = 1 ]; then
	mkdir "$T/other"
	chown nobody "$T/other"
	expect_exit hcache-3.1 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/other"
	has hcache-3.2 owned "the kernel cache folder $T/other belongs to user $(id -u nobody), not to you (user 0)"
	# a shared cache of mode 1777 another user made
	mkdir -m 1777 "$T/shared"
	chown nobody "$T/shared"
	expect_exit hcache-3.3 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/shared"
	has hcache-3.4 owned "the kernel cache folder $T/shared belongs to user $(id -u nobody)"
	# user/ inside a cache of one's own, made by another user first
	mkdir -p "$T/c3u/user"
	chown nobody "$T/c3u/user"
	expect_exit hcache-3.5 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/c3u"
	has hcache-3.6 owned "the kernel cache folder $T/c3u/user belongs to user"
	# the swap: another user's .so under the key fgobench looks for
	expect_exit hcache-3.7 0 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/c3"
	so=$(ls "$T/c3/user/"*.so)
	cp "$T/evil.so" "$so"
	chown nobody "$so"
	expect_exit hcache-3.8 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/c3"
	has hcache-3.9 owned "the kernel cache file $so belongs to user $(id -u nobody), not to you (user 0)"
	expect_eq hcache-3.10 "" "$(marks)"
else
	echo "SKIP hcache-3.1-3.10: another user's files need root (chown)"
fi
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
expect_exit hcache-3.11 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/open"
has hcache-3.12 owned "the kernel cache folder $T/open is writable by others (mode 0777)"
has hcache-3.13 owned "run chmod go-w $T/open"
mkdir "$T/grp"
chmod 0775 "$T/grp"
expect_exit hcache-3.14 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/grp"
has hcache-3.15 owned "the kernel cache folder $T/grp is writable by its group (mode 0775)"
# a folder above the cache that others may write (no sticky bit): the cache could be swapped
expect_exit hcache-3.16 1 sweep "$T/k3/owned.json" FGOBENCH_CACHE="$T/open/c"
has hcache-3.17 owned "the folder $T/open above the kernel cache"
expect_eq hcache-3.18 "" "$(ls "$T/open")"

# ---- hcache-4: what the cache holds is what fgobench wrote, or it compiles again ----
kernel "$T/k4" swapped
expect_exit hcache-4.1 0 sweep "$T/k4/swapped.json" FGOBENCH_CACHE="$T/c4"
so=$(ls "$T/c4/user/"*.so)
cp "$T/evil.so" "$so" # one's own file, of another content
expect_exit hcache-4.2 0 sweep "$T/k4/swapped.json" FGOBENCH_CACHE="$T/c4"
expect_eq hcache-4.3 "ok" "$(status_of swapped)"
expect_eq hcache-4.4 "" "$(marks)"
expect_err hcache-4.5 "note: the kernel cache entry $so was damaged, or written by an older fgobench: compiled again"
check hcache-4.6 "the object was replaced" sh -c "! cmp -s '$T/evil.so' '$so'"
# the embedded fgo_user.h in the cache, edited to the same size: a new
# kernel's compile gets the embedded one, not this
hdr=$(ls "$T/c4/user/"include-*/fgo_user.h)
python3 - "$hdr" "$M/header" <<'EOF'
import sys
path, mark = sys.argv[1], sys.argv[2]
text = open(path).read()
end = text.index("*/") + 2
code = ('#include <stdio.h>\n__attribute__((constructor)) static void evil_(void) '
        '{ FILE *f = fopen("%s", "w"); if (f) fclose(f); }\n' % mark)
pad = end - len(code) - 4
assert pad >= 0
open(path, "w").write(code + "/*" + "x" * pad + "*/" + text[end:])
EOF
kernel "$T/k4" other 0
sed -i 's/"BUG": \[0\]/"BUG": [4]/' "$T/k4/other.json"
expect_exit hcache-4.7 0 sweep "$T/k4/other.json" FGOBENCH_CACHE="$T/c4"
expect_eq hcache-4.8 "ok" "$(status_of other)"
expect_eq hcache-4.9 "" "$(marks)"
check hcache-4.10 "the header is the embedded one again" cmp -s "$hdr" kernels/fgo_user.h

# ---- hcache-5: a kept compile error is data ----
kernel "$T/k5" forged
expect_exit hcache-5.1 0 sweep "$T/k5/forged.json" FGOBENCH_CACHE="$T/c5"
key=$(ls "$T/c5/user/" | sed -n 's/\.so$//p')
printf 'does not compile: %s[2J%s]0;owned%s\\ forged\n' "$ESC" "$ESC" "$ESC" >"$T/c5/user/$key.err"
expect_exit hcache-5.2 0 sweep "$T/k5/forged.json" FGOBENCH_CACHE="$T/c5"
expect_eq hcache-5.3 "ok" "$(status_of forged)"
expect_err hcache-5.4 "$key.err was damaged, or written by an older fgobench: compiled again"
# a record of the right form whose message holds escapes (as a source line
# echoed by the compiler may): shown as text
cp tests/e2e/user/broken.c "$T/k5/"
sed -e 's/"bad.c"/"broken.c"/' -e 's/"entry": "bad"/"entry": "broken"/' -e 's/"name": "bad"/"name": "esc"/' \
	tests/e2e/user/bad.json >"$T/k5/esc.json"
expect_exit hcache-5.5 1 sweep "$T/k5/esc.json" FGOBENCH_CACHE="$T/c5"
err=$(ls "$T/c5/user/"*.err)
python3 - "$err" <<'EOF'
import sys
path = sys.argv[1]
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
data = open(path, "rb").read()
body = data[:data.rindex(b"check ")]
head, log = body.split(b"\nlog ", 1)
lines = [l if not l.startswith(b"reason ") else b"reason does not compile: \x1b[2J\x1b]0;owned\x07 forged"
         for l in head.split(b"\n")]
msg = b"broken.c:8: \x1b[31mred\x1b[0m \x9b2J\n"
body = b"\n".join(lines) + b"\nlog %d\n" % len(msg) + msg + b"\n"
open(path, "wb").write(body + b"check %016x\n" % fnv(body))
EOF
expect_exit hcache-5.6 1 sweep "$T/k5/esc.json" FGOBENCH_CACHE="$T/c5"
check hcache-5.7 "no escape byte in the stored reasons" sh -c "! sqlite3 '$FGOBENCH_DB' 'select reason from runs' | grep -q '$ESC'"
has hcache-5.8 esc 'does not compile: \x1b[2J\x1b]0;owned\x07 forged'
check hcache-5.9 "no escape byte on stderr" sh -c "! grep -q '$ESC' '$T/err'"
expect_err hcache-5.10 'broken.c:8: \x1b[31mred\x1b[0m \x9b2J'

# ---- hcache-6: FIFOs and folders are not files to read ----
mkdir -p "$T/f/dir.c"
kernel "$T/f" fif
mkfifo "$T/f/fifo.json" "$T/f/fifo.c" "$T/f/fifo.h"
expect_exit hcache-6.1 2 timeout 20 "$FGO" sweep "$W1" --kernel "$T/f/fifo.json" --dry-run
expect_err hcache-6.2 "fifo.json: cannot read the kernel's manifest: it is a FIFO (a named pipe), not a plain file"
sed 's/"bad.c"/"fifo.c"/' "$T/f/fif.json" >"$T/f/src.json"
expect_exit hcache-6.3 2 timeout 20 "$FGO" sweep "$W1" --kernel "$T/f/src.json" --dry-run
expect_err hcache-6.4 "cannot read $T/f/fifo.c: it is a FIFO (a named pipe), not a plain file"
sed 's/"entry"/"headers": ["fifo.h"], "entry"/' "$T/f/fif.json" >"$T/f/hdr.json"
expect_exit hcache-6.5 2 timeout 20 "$FGO" sweep "$W1" --kernel "$T/f/hdr.json" --dry-run
expect_err hcache-6.6 "cannot read $T/f/fifo.h: it is a FIFO (a named pipe), not a plain file"
sed 's/"bad.c"/"dir.c"/' "$T/f/fif.json" >"$T/f/dir.json"
expect_exit hcache-6.7 2 timeout 20 "$FGO" sweep "$W1" --kernel "$T/f/dir.json" --dry-run
expect_err hcache-6.8 "cannot read $T/f/dir.c: it is a folder, not a file"

# ---- hcache-7: a compile that hangs is stopped at its limit ----
kernel "$T/k7" hang
mkfifo "$T/k7/stuck.h"
printf '#include "stuck.h"\n' >>"$T/k7/bad.c"
expect_exit hcache-7.1 1 timeout 60 env FGOBENCH_CACHE="$T/c7" FGOBENCH_COMPILE_TIMEOUT=1 \
	mpirun --oversubscribe -np 1 "$FGO" sweep "$W1" --kernel "$T/k7/hang.json"
has hcache-7.2 hang "does not compile (user:hang BUG=0 fp32 fused): the compiler ran past its limit of 1 s (--compile-timeout"
expect_eq hcache-7.3 "" "$(ls "$T/c7/user" | grep -v '^include-')"
check hcache-7.4 "no compiler left running" sh -c "! ps -eo args | grep -F '$T/c7' | grep -v grep"
kernel "$T/k7" limit
expect_exit hcache-7.5 1 sweep "$T/k7/limit.json" FGOBENCH_CACHE="$T/c7" FGOBENCH_COMPILE_TIMEOUT=soon
has hcache-7.6 limit 'FGOBENCH_COMPILE_TIMEOUT "soon": expects the C compiler'"'"'s time limit in seconds'

# ---- hcache-8: a header the manifest does not list, edited ----
mkdir -p "$T/k8"
{ echo '#include "helper.h"'; cat tests/e2e/user/bad.c; } >"$T/k8/kh.c"
echo '#define BUG 0' >"$T/k8/helper.h"
sed -e 's/"bad.c"/"kh.c"/' -e 's/"name": "bad"/"name": "unlisted"/' -e 's/"BUG": \[1\]/"T": [0]/' \
	tests/e2e/user/bad.json >"$T/k8/m.json"
expect_exit hcache-8.1 0 sweep "$T/k8/m.json" FGOBENCH_CACHE="$T/c8"
echo '#define BUG 1' >"$T/k8/helper.h" # the wrong element at C[3][5]
expect_exit hcache-8.2 1 sweep "$T/k8/m.json" FGOBENCH_CACHE="$T/c8"
expect_eq hcache-8.3 mismatch "$(status_of unlisted)"
expect_err hcache-8.4 "note: user:unlisted: $T/k8/helper.h changed since it was compiled"
echo '#define BUG 0' >"$T/k8/helper.h"
expect_exit hcache-8.5 0 sweep "$T/k8/m.json" FGOBENCH_CACHE="$T/c8"

# ---- hcache-9: a compile error once a sweep, whole, also from the cache ----
mkdir -p "$T/k9"
cp tests/e2e/user/broken.c "$T/k9/"
sed -e 's/"bad.c"/"broken.c"/' -e 's/"entry": "bad"/"entry": "broken"/' -e 's/"name": "bad"/"name": "noisy"/' \
	-e 's/"BUG": \[1\]/"BUG": [1, 2, 3, 4, 5, 6, 7, 8]/' tests/e2e/user/bad.json >"$T/k9/m.json"
expect_exit hcache-9.1 1 sweep "$T/k9/m.json" FGOBENCH_CACHE="$T/c9"
expect_eq hcache-9.2 1 "$(grep -c 'broken.c does not compile' "$T/err")"
check hcache-9.3 "the whole message: $(head -c 300 "$T/err")" sh -c \
	"grep -q \"broken.c:8:16: error: .*undeclared_name\" '$T/err' && grep -q 'note: each undeclared identifier' '$T/err'"
expect_exit hcache-9.4 1 sweep "$T/k9/m.json" FGOBENCH_CACHE="$T/c9"
expect_eq hcache-9.5 1 "$(grep -c 'broken.c does not compile (.*the message the kernel cache kept)' "$T/err")"
check hcache-9.6 "the whole message from the cache" sh -c \
	"grep -q \"broken.c:8:16: error: .*undeclared_name\" '$T/err' && grep -q 'note: each undeclared identifier' '$T/err'"
expect_eq hcache-9.7 16 "$(sql "select count(*) from runs where algorithm = 'user:noisy' and reason like 'does not compile (user:noisy BUG=_ fp32 fused): $T/k9/broken.c:8:16: error:%'")"
expect_eq hcache-9.8 "" "$(marks)"
# two ranks share the compiles of a sweep (each compiles some): still once
sed 's/"world": 1/"world": 2/' "$W1" >"$T/w2.json"
expect_exit hcache-9.9 1 env FGOBENCH_CACHE="$T/c9b" mpirun --oversubscribe -np 2 "$FGO" sweep "$T/w2.json" \
	--kernel "$T/k9/m.json"
expect_eq hcache-9.10 1 "$(grep -c 'broken.c does not compile' "$T/err")"
expect_exit hcache-9.11 1 env FGOBENCH_CACHE="$T/c9b" mpirun --oversubscribe -np 2 "$FGO" sweep "$T/w2.json" \
	--kernel "$T/k9/m.json"
expect_eq hcache-9.12 1 "$(grep -c 'broken.c does not compile (.*the message the kernel cache kept)' "$T/err")"
