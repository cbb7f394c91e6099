#!/usr/bin/env bash
# Installs what the tests need, then runs every test. The one command for a fresh machine:
#   bash scripts/test.sh
# Device, FUSE, PostgreSQL and network-namespace tests need root. A test that cannot run here
# skips with one line naming what is missing, and under CI=true that line is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every package the tests use, asked of apt every time as root (a no-op when present): a
# check by file can match the wrong thing (libclang-cpp.so is not the libclang.so bindgen
# needs), and then a fresh machine fails in the middle of the build.
pkgs=(
  fio fio-examples bc util-linux e2fsprogs  # the peer (bc computes its $keyword values), its
                                           # example job files, zramctl/losetup, mkfs
  chromium                               # HTML report tests open every page headless
  strace fuse3                           # fsync tests count syscalls; durability mounts a lying disk
  blktrace time                          # blkparse reads the blktrace files replay tests write;
                                         # GNU time measures a replay's peak memory
  postgresql postgresql-client           # db tests start throwaway clusters, compare with pgbench
  sysbench                               # seed 003's fsync comparison runs sysbench fileio
  libopenmpi-dev openmpi-bin libclang-dev  # the MPI build (rsmpi's bindgen needs libclang.so)
  iproute2 kmod procps python3           # network namespaces for emulated hosts; modprobe; pkill
  python3-venv gnuplot-nox               # fio-plot, fio's charting client, in a venv;
                                         # fio_generate_plots draws with gnuplot
  dpkg-dev gzip                          # the package: cargo-deb's dependency scan, man pages
  libssl-dev pkg-config openssl          # the team store's TLS (openssl-sys builds against
                                         # libssl); the TLS test makes a certificate
  prometheus                             # a real scraper (and promtool) for --metrics-listen
  btrfs-progs btrfs-compsize xfsprogs    # what a compressing file system does to written
                                         # data (compsize the reference), and no false alarm
                                         # on xfs or plain btrfs
)
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
else
  echo "not root: cannot install ${pkgs[*]}; device, FUSE, PostgreSQL and network tests need root" >&2
fi
# zram is a module on most distributions; load it if it is not built in.
if [ "$(id -u)" = 0 ] && [ ! -e /sys/class/zram-control ] && command -v modprobe >/dev/null; then
  modprobe zram num_devices=0 2>/dev/null || true
fi
if [ "$(id -u)" = 0 ] && [ ! -e /dev/fuse ] && command -v modprobe >/dev/null; then
  modprobe fuse 2>/dev/null || true
fi

# One build from scratch gains nothing from the incremental cache, which was a quarter of
# target/ (2.5 GB); a machine with little free disk is then spared it. A developer's own
# `cargo test` keeps it.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Say how much disk the build has, so a run that fails for space says so at its top.
df -h . | awk 'NR==2 {print "disk free for the build: " $4 " of " $2}' >&2

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
# fio-plot (PyPI), the client that draws fio's JSON: tests/fio/reporting.rs draws volbench's with
# it. A pinned version in a venv under target/, so the system's Python stays untouched.
if [ ! -x target/fio-plot-venv/bin/fio-plot ]; then
  python3 -m venv target/fio-plot-venv && target/fio-plot-venv/bin/pip install -q fio-plot==1.1.21 \
    || echo "fio-plot could not be installed (no PyPI?): tests/fio/reporting.rs will skip" >&2
fi
if [ -x target/fio-plot-venv/bin/fio-plot ]; then
  export VOLBENCH_FIO_PLOT="$PWD/target/fio-plot-venv/bin/fio-plot"
fi
# The fuzz targets (tests/fuzz.rs of workload, durability, cloud, report) run a short run of
# 256 generated inputs each here; docs/fuzzing.md has the long run.
export PROPTEST_CASES="${PROPTEST_CASES:-256}"
# --no-fail-fast: one failing test binary must not hide the results of the others, nor the
# package test after them.
status=0
cargo test --workspace --no-fail-fast || status=$?
# The Debian package: built, installed with dpkg, `volbench quick` run from it, removed.
bash scripts/package-test.sh || status=$?
exit "$status"
