#!/usr/bin/env python3
"""The `scaling` suite's numjobs sweep, volbench against fio and the kernel, point by point.

For each access pattern and numjobs value of the shipped `scaling` suite (4k, QD1 per job,
io_uring, O_DIRECT), runs fio and volbench alternately on one zram device (created here and
removed) and prints, per point:
  - fio's group IOPS and volbench's, and their ratio;
  - the kernel's own rate over volbench's measured interval (/sys/block/zramN/stat deltas the
    report carries, divided by the wall time between the two snapshots), and volbench's ratio
    to it: the check that caught staggered job windows inflating IOPS up to 5x;
  - each tool's wall time for the point (thread setup included).

With --cap-iops N both tools run inside a cgroup v1 blkio throttle of N IOPS on the device,
so the device, not each tool's CPU cost or the kernel's scheduling of 256 threads on two
cores, sets the rate: there the tools must agree, and a tool that inflates its figure shows.

Usage (root):  python3 bench/scaling_vs_fio.py [--runtime 5] [--jobs 1,4,16,64,256]
               [--patterns read,write,randread,randwrite] [--engine io_uring] [--cap-iops N]
"""
import argparse, json, os, signal, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")


CGROUP = None  # a blkio cgroup directory the tools run in, with --cap-iops


def timed(cmd):
    t = time.monotonic()
    if CGROUP:
        cmd = ["sh", "-c", f'echo $$ > {CGROUP}/cgroup.procs && exec "$0" "$@"'] + cmd
    p = subprocess.run(cmd, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    return p.stdout, time.monotonic() - t


def common(dev, rw, nj, runtime, engine):
    return [f"--filename={dev}", f"--rw={rw}", "--bs=4k", "--iodepth=1", f"--numjobs={nj}",
            f"--ioengine={engine}", "--direct=1", f"--runtime={runtime}", "--time_based",
            "--size=1g"]


def fio(dev, rw, nj, runtime, engine):
    out, wall = timed(["fio", "--name=scaling", "--group_reporting", "--output-format=json"]
                      + common(dev, rw, nj, runtime, engine))
    j = json.loads(out)["jobs"][0]
    d = j["write"] if "write" in rw else j["read"]
    return d["iops"], wall


def volbench(dev, rw, nj, runtime, engine):
    out, wall = timed([VB, "run", "--output-format=volbench-json", "-q", "--no-store",
                       "--allow-destructive"] + common(dev, rw, nj, runtime, engine))
    r = json.loads(out)
    key = "write" if "write" in rw else "read"
    iops = r["group"][key]["iops"]
    k = r["environment"]["targets"][0]["kernel_counters"]
    ios = k[f"{key}_ios"] + k[f"{key}_merges"]
    kernel = ios / (k["interval_ns"] / 1e9)
    return iops, kernel, wall, [w["code"] for w in r["warnings"]]


def main():
    # SIGTERM and Ctrl-C both unwind through `finally`, so the device and cgroup go.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--jobs", default="1,4,16,64,256")
    ap.add_argument("--patterns", default="read,write,randread,randwrite")
    ap.add_argument("--engine", default="io_uring")
    ap.add_argument("--cap-iops", type=int, default=0)
    a = ap.parse_args()
    dev = subprocess.run(["zramctl", "--find", "--size", "1G"], capture_output=True,
                         text=True, check=True).stdout.strip()
    global CGROUP
    if a.cap_iops:
        CGROUP = f"/sys/fs/cgroup/blkio/volbench-bench-{os.getpid()}"
        os.makedirs(CGROUP)
        rdev = os.stat(dev).st_rdev
        ident = f"{os.major(rdev)}:{os.minor(rdev)}"
        for f in ("read_iops_device", "write_iops_device"):
            with open(f"{CGROUP}/blkio.throttle.{f}", "w") as fh:
                fh.write(f"{ident} {a.cap_iops}")
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={dev}", "bs=1M", "count=1024",
                        "oflag=direct", "status=none"], check=True)
        cap = f", capped at {a.cap_iops} IOPS" if a.cap_iops else ""
        print(f"scaling suite points on {dev} (1 GiB zram{cap}), {a.engine}, 4k QD1 per job, "
              f"{a.runtime} s each, fio then volbench\n")
        print(f"{'pattern':<10} {'jobs':>4} {'fio IOPS':>10} {'volbench':>10} {'vb/fio':>7} "
              f"{'kernel':>10} {'vb/kern':>7} {'fio wall':>8} {'vb wall':>8}  warnings")
        for rw in a.patterns.split(","):
            for nj in [int(x) for x in a.jobs.split(",")]:
                f, fw = fio(dev, rw, nj, a.runtime, a.engine)
                v, k, vw, warns = volbench(dev, rw, nj, a.runtime, a.engine)
                print(f"{rw:<10} {nj:>4} {f:>10.0f} {v:>10.0f} {v / f:>7.3f} {k:>10.0f} "
                      f"{v / k:>7.3f} {fw:>7.1f}s {vw:>7.1f}s  {','.join(warns)}", flush=True)
    finally:
        if CGROUP:
            os.rmdir(CGROUP)
        subprocess.run(["zramctl", "--reset", dev])


if __name__ == "__main__":
    main()
