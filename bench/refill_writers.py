#!/usr/bin/env python3
"""Many writers with refill_buffers, volbench against fio (issue 23's last figure).

16 jobs x iodepth 16 of 4 KiB random writes with refill_buffers and norandommap on one file,
each tool in turn, `--reps` times: the same job file for both, its IOPS and CPU per I/O.
Prints the medians and the ratios (volbench / fio).

Usage: python3 bench/refill_writers.py [--runtime 4] [--reps 3] [--dir /var/tmp] [--engine libaio]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")

JOB = """[global]
filename={file}
size=256m
ioengine={engine}
direct=1
rw=randwrite
bs=4k
iodepth=16
numjobs=16
refill_buffers
norandommap
time_based
runtime={runtime}
group_reporting
[w]
"""


def run(cmd):
    """(stdout, CPU seconds of the whole child)."""
    p = subprocess.run(cmd, capture_output=True)
    out, err = p.stdout, p.stderr
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err.decode()}")
    return out


def iops(cmd):
    before = os.times()
    out = run(cmd)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    j = json.loads(out)["jobs"][0]["write"]
    return j["iops"], cpu / max(1, j["total_ios"]) * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--engine", default="libaio")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        job = os.path.join(d, "w.fio")
        with open(job, "w") as f:
            f.write(JOB.format(file=os.path.join(d, "f"), engine=a.engine, runtime=a.runtime))
        # Lay the file out once, so neither tool pays for it in its figures.
        run(["fio", "--name=lay", f"--filename={os.path.join(d, 'f')}", "--size=256m",
             "--rw=write", "--bs=1m", "--output-format=json"])
        fio, vb = [], []
        for _ in range(a.reps):
            fio.append(iops(["fio", job, "--output-format=json"]))
            vb.append(iops([VB, "run", job, "--output-format=json", "-q", "--no-store"]))
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    fi, vi = med(fio, 0), med(vb, 0)
    fc, vc = med(fio, 1), med(vb, 1)
    print(f"16 jobs x QD16 4k randwrite refill_buffers norandommap, {a.engine}, {a.runtime} s x {a.reps}")
    print(f"  fio      {fi:10.0f} IOPS  {fc:7.0f} ns CPU/IO   runs {[round(x[0]) for x in fio]}")
    print(f"  volbench {vi:10.0f} IOPS  {vc:7.0f} ns CPU/IO   runs {[round(x[0]) for x in vb]}")
    print(f"  ratio    {vi / fi:10.2f}x IOPS {vc / fc:7.2f}x CPU/IO")


if __name__ == "__main__":
    main()
