#!/usr/bin/env python3
"""A long run's memory (issue 56): volbench at a 100 ms interval for MINUTES, its RSS read from
/proc every 10 s. Prints the RSS at minute 2 and at the end, their ratio, and the slope after
minute 2 extrapolated to 24 h. With --fio, fio runs the same job after it, for comparison.

  python3 bench/rss_long.py --minutes 20           # the figure in docs/PERFORMANCE.md
  python3 bench/rss_long.py --minutes 3 --fio      # quicker, fio beside it

The job is psync 4 KiB random reads of a page-cached 64 MiB file with `--write_iops_log`,
`--write_lat_log` and `--log_avg_msec=100` (fio's way to ask for a 100 ms interval), plus
`--interval-log` to a file: every interval's record, sample and histogram, is made.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VOLBENCH = os.path.join(HERE, "..", "target", "release", "volbench")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def watch(cmd, secs):
    """Runs cmd, reading its RSS every 10 s: [(seconds, KiB)]."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    start = time.monotonic()
    points = []
    while p.poll() is None:
        time.sleep(10)
        t = time.monotonic() - start
        try:
            kib = rss_kib(p.pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        if kib and t <= secs:
            points.append((t, kib))
            print(f"  {t:7.0f} s  {kib / 1024:7.1f} MiB", flush=True)
    err = p.stderr.read().decode()
    if p.wait() != 0:
        sys.exit(f"{cmd[0]} failed: {err.strip()}")
    return points


def job(d, secs):
    f = os.path.join(d, "f.dat")
    return [
        "--name=soak", f"--filename={f}", "--size=64m", "--rw=randread", "--bs=4k",
        "--ioengine=psync", f"--runtime={secs}", "--time_based",
        f"--write_iops_log={d}/vb", f"--write_lat_log={d}/vb", "--log_avg_msec=100",
    ]


def verdict(name, points):
    at2 = min(points, key=lambda p: abs(p[0] - 120))
    end = points[-1]
    slope = (end[1] - at2[1]) / max(end[0] - at2[0], 1)  # KiB/s
    print(f"{name}: RSS {at2[1] / 1024:.1f} MiB at {at2[0]:.0f} s, "
          f"{end[1] / 1024:.1f} MiB at {end[0]:.0f} s: ratio {end[1] / at2[1]:.3f}, "
          f"slope {slope:.2f} KiB/s = {slope * 86400 / 1024:.1f} MiB per 24 h")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--fio", action="store_true")
    a = ap.parse_args()
    secs = int(a.minutes * 60)
    d = tempfile.mkdtemp(prefix="vb-rss-")
    try:
        with open(os.path.join(d, "f.dat"), "wb") as f:
            f.write(os.urandom(64 << 20))
        print(f"volbench, {secs} s at a 100 ms interval:")
        vb = watch([VOLBENCH, f"--interval-log={d}/ndjson", "run", *job(d, secs),
                    "--invalidate=0", "--no-store", "-q"], secs)
        verdict("volbench", vb)
        if a.fio and shutil.which("fio"):
            print(f"fio, {secs} s at a 100 ms interval:")
            verdict("fio", watch(["fio", *job(d, secs), "--invalidate=0",
                                  "--output-format=json"], secs))
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
