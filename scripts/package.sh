#!/usr/bin/env bash
# Builds the Debian package: the stripped binary, its man pages and its shell completions,
# all generated from the CLI definitions. The .deb's path is the last line printed.
#   bash scripts/package.sh                 # release build (what to install)
#   bash scripts/package.sh --profile dev   # the test build, as scripts/test.sh packs it
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
if [ "${1:-}" = "--profile" ]; then profile="$2"; fi
case "$profile" in dev) out=debug ;; *) out="$profile" ;; esac

# cargo-deb, pinned, built once into ~/.cargo/bin.
if ! cargo deb --version 2>/dev/null | grep -q "3.8.0"; then
  cargo install --locked cargo-deb --version 3.8.0 >&2
fi
cargo build --profile "$profile" -p volbench >&2
bin="target/$out/volbench"
# Beside the binary, where the package's asset paths (target/release/...) point for any
# profile.
assets="target/$out/assets"
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions"
"$bin" man "$assets/man" >&2
gzip -9nf "$assets"/man/*.1
"$bin" completions bash > "$assets/completions/volbench"
"$bin" completions zsh > "$assets/completions/_volbench"
"$bin" completions fish > "$assets/completions/volbench.fish"
# Stripped for every profile, said explicitly: cargo-deb keeps the debug info where the
# profile asks for it (the release profile has debug = 1 for profiling), and shipped a 90 MB
# /usr/bin/volbench that way.
cargo deb -p volbench --no-build --profile "$profile" --strip --no-separate-debug-symbols \
  --no-dbgsym --output target/debian/ >&2
deb="$(ls -t target/debian/volbench_*.deb | head -1)"
# The check, whatever the profile: no debug section in the binary the package installs.
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -x "$deb" "$unpacked"
if readelf -S --wide "$unpacked/usr/bin/volbench" | grep -q '\.debug_info'; then
  echo "package: $deb ships /usr/bin/volbench with debug sections: not stripped" >&2
  exit 1
fi
echo "$deb"
