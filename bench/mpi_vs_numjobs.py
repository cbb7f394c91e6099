#!/usr/bin/env python3
"""N MPI ranks (one job each) against one volbench process with --numjobs=N, on one device.

Both drive the same zram device with the same per-job workload (each job its own region of
--size), alternating, so the only difference is processes and MPI's start/stonewall. Prints the
IOPS of each, the ratio (goal: at least 0.95), and the ranks' start skew (goal: under 1 ms on
one host).

Usage (root, Open MPI installed):
    python3 bench/mpi_vs_numjobs.py [--ranks 2 4] [--reps 5] [--runtime 5] [--iodepth 16]
"""
import argparse, json, os, statistics, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "mpi", "release", "volbench")


def job(dev, runtime, iodepth, size):
    return ["run", "--filename", dev, "--rw=randread", "--bs=4k", f"--iodepth={iodepth}",
            "--ioengine=io_uring", "--direct=1", f"--size={size}", f"--runtime={runtime}s",
            "--no-store", "-q", "--output-format=volbench-json"]


def numjobs(n, dev, runtime, iodepth, size):
    # offset_increment gives each clone its own region, as --shared-file gives each rank one.
    out = subprocess.run([BIN] + job(dev, runtime, iodepth, size)
                         + [f"--numjobs={n}", f"--offset_increment={size}"],
                         capture_output=True, text=True, check=True).stdout
    v = json.loads(out)
    return v["group"]["read"]["iops"], None


def ranks(n, dev, runtime, iodepth, size):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(n), "--bind-to", "none",
           BIN] + job(dev, runtime, iodepth, size) + ["--shared-file"]
    v = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return v["group"]["read"]["iops"], v["scaleout"]["start_skew_ns"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--iodepth", type=int, default=16)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "--features", "mpi", "--target-dir",
                    os.path.join(ROOT, "target", "mpi")], cwd=ROOT, check=True)
    z = subprocess.run(["zramctl", "--find", "--size", "2G"], capture_output=True, text=True,
                       check=True).stdout.strip()
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={z}", "bs=1M", "count=2048", "oflag=direct",
                        "status=none"], check=True)
        print(f"{'N':>3} {'numjobs=N IOPS':>16} {'N ranks IOPS':>14} {'ratio':>6} {'skew ms (median, max)':>22}")
        for n in args.ranks:
            size = f"{2048 // n}m"
            a, b, skew = [], [], []
            for _ in range(args.reps):
                a.append(numjobs(n, z, args.runtime, args.iodepth, size)[0])
                i, s = ranks(n, z, args.runtime, args.iodepth, size)
                b.append(i)
                skew.append(s / 1e6)
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"{n:>3} {ma:>16.0f} {mb:>14.0f} {mb / ma:>6.3f} "
                  f"{statistics.median(skew):>13.3f}, {max(skew):.3f}")
            print(f"    numjobs: {[round(x) for x in a]}\n    ranks:   {[round(x) for x in b]}")
    finally:
        subprocess.run(["zramctl", "--reset", z])


if __name__ == "__main__":
    main()
