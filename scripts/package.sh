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
# cargo-deb strips the binary (today's release binary is ~68 MB with its debug info).
cargo deb -p volbench --no-build --profile "$profile" --output target/debian/ >&2
ls -t target/debian/volbench_*.deb | head -1
