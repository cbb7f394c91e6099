#!/usr/bin/env bash
# The package, tested as a user meets it: build the .deb (scripts/package.sh, from the test
# build), install it with dpkg, check the man pages and completions it ships, run
# `volbench quick` from /usr/bin, and remove it. Needs root (dpkg); under CI=true a test that
# cannot run fails with one line naming why.
set -euo pipefail
cd "$(dirname "$0")/.."
cannot() {
  echo "package test: cannot run: $1" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  exit 0
}
[ "$(id -u)" = 0 ] || cannot "not root (dpkg -i needs root)"
# Never replace a package the user installed: the test installs and removes its own.
if dpkg -s volbench >/dev/null 2>&1; then
  cannot "a volbench package is installed already (dpkg -r volbench first)"
fi
deb="$(bash scripts/package.sh --profile dev | tail -1)"
work="$(mktemp -d)"
trap 'dpkg -r volbench >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
dpkg -i "$deb" >/dev/null
fail() { echo "package test: FAILED: $1" >&2; exit 1; }
[ -x /usr/bin/volbench ] || fail "no /usr/bin/volbench"
for page in volbench volbench-run volbench-doctor volbench-durability-create; do
  [ -s "/usr/share/man/man1/$page.1.gz" ] || fail "no man page $page.1.gz"
done
zcat /usr/share/man/man1/volbench-run.1.gz | grep -q 'latency_target' ||
  fail "volbench-run.1 lacks fio's options from the option table"
bash -c 'source /usr/share/bash-completion/completions/volbench && complete -p volbench' >/dev/null ||
  fail "the bash completion does not register"
grep -q 'doctor' /usr/share/zsh/vendor-completions/_volbench || fail "zsh completion lacks doctor"
grep -q 'doctor' /usr/share/fish/vendor_completions.d/volbench.fish || fail "fish completion lacks doctor"
# The stripped binary: the test build's debug info alone is over 100 MB.
size=$(stat -c %s /usr/bin/volbench)
[ "$size" -lt $((60 << 20)) ] || fail "/usr/bin/volbench is $size bytes: not stripped"
out="$(cd "$work" && VOLBENCH_STORE="$work/store.db" /usr/bin/volbench quick --runtime=1s --size=64m \
  --output-format=volbench-json "$work" 2>"$work/err")" || fail "volbench quick: $(tail -3 "$work/err")"
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["runs"]) == 5, d.keys()' ||
  fail "volbench quick did not report its five tests"
[ -s "$work/store.db" ] || fail "volbench quick stored nothing in VOLBENCH_STORE"
dpkg -r volbench >/dev/null
[ ! -e /usr/bin/volbench ] || fail "dpkg -r left /usr/bin/volbench"
echo "package test: ok ($deb: installed, quick ran from /usr/bin, removed)"
