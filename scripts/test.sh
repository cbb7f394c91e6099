#!/usr/bin/env bash
# Installs what the tests need, then runs every test. The one command for a fresh machine:
#   bash scripts/test.sh
# Device tests (zram, loop, ramfs, mkfs) need root; without root they skip with a message.
# HTML report tests need chromium; without it they skip with a message. FUSE tests need root and /dev/fuse.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v fio >/dev/null || need+=(fio)
[ -d /usr/share/doc/fio/examples ] || need+=(fio-examples)
command -v zramctl >/dev/null || need+=(util-linux)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
# HTML report tests open every page in headless Chromium.
command -v chromium >/dev/null || need+=(chromium)
# fsync tests count sync syscalls with strace; durability tests mount a FUSE "lying disk".
command -v strace >/dev/null || need+=(strace)
command -v fusermount3 >/dev/null || need+=(fuse3)
# db tests start throwaway PostgreSQL clusters and compare with pgbench (postgresql-client).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v pgbench >/dev/null || need+=(postgresql-client)
# MPI tests build volbench with --features mpi (rsmpi needs libclang for its bindings) and run
# it under Open MPI's mpirun; two emulated hosts use network namespaces (iproute2).
[ -e /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || [ -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || need+=(libopenmpi-dev)
command -v mpirun >/dev/null || need+=(openmpi-bin)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
command -v ip >/dev/null || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing ${need[*]}: install them (apt-get install -y ${need[*]}) or run as root" >&2
  fi
fi
# zram is a module on most distributions; load it if it is not built in.
if [ "$(id -u)" = 0 ] && [ ! -e /sys/class/zram-control ] && command -v modprobe >/dev/null; then
  modprobe zram num_devices=0 2>/dev/null || true
fi
if [ "$(id -u)" = 0 ] && [ ! -e /dev/fuse ] && command -v modprobe >/dev/null; then
  modprobe fuse 2>/dev/null || true
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The MPI build, for tests/mpi.rs (the default build links no MPI library). Built in the same
# target directory (cargo keeps both feature sets) and copied aside before the default build
# takes the name back.
if command -v mpicc >/dev/null; then
  cargo clippy -p scaleout -p volbench --all-targets --features volbench/mpi,scaleout/mpi -- -D warnings
  cargo build -p volbench --features mpi && cp target/debug/volbench target/volbench-mpi
  export VOLBENCH_MPI_BIN="$PWD/target/volbench-mpi"
else
  echo "Open MPI is missing: tests/mpi.rs will skip (apt-get install -y libopenmpi-dev openmpi-bin libclang-dev)" >&2
fi
# --no-fail-fast: one failing test binary must not hide the results of the others.
cargo test --workspace --no-fail-fast
