#!/usr/bin/env python3
"""One case, many alternations: 4k randread QD32 io_uring on a zram device, fio vs volbench.

The full comparison (vs_fio.py) runs each case five times; on a shared VM this case moves by
±15 % between runs, so this script alternates it more often to pin the ratio down.

Usage (root):  python3 bench/ab_zram_qd32.py [--reps 9] [--runtime 4]
"""
import argparse, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_fio import ROOT, fio, volbench  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--runtime", type=int, default=4)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    z = subprocess.run(["zramctl", "--find", "--size", "1G"], capture_output=True, text=True, check=True).stdout.strip()
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={z}", "bs=1M", "count=1024", "oflag=direct", "status=none"], check=True)
        f, v = [], []
        for _ in range(args.reps):
            i, n, c, _ = fio(z, "randread", "4k", 32, "io_uring", args.runtime, "1g")
            f.append((i, c / n * 1e6))
            i, n, c, _ = volbench(z, "randread", "4k", 32, "io_uring", args.runtime, "1g")
            v.append((i, c / n * 1e6))
        fm, vm = statistics.median(x[0] for x in f), statistics.median(x[0] for x in v)
        fc, vc = statistics.median(x[1] for x in f), statistics.median(x[1] for x in v)
        print("fio IOPS", [round(x[0] / 1000) for x in f], "median %.0f, CPU us/IO %.2f" % (fm, fc))
        print("vb  IOPS", [round(x[0] / 1000) for x in v], "median %.0f, CPU us/IO %.2f" % (vm, vc))
        print("ratio IOPS %.2f, CPU %.2f" % (vm / fm, vc / fc))
    finally:
        subprocess.run(["zramctl", "--reset", z])


if __name__ == "__main__":
    main()
