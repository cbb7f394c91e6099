#!/usr/bin/env python3
"""The long fio cross-check: the same fio job file through fio and volbench on a device-bound
target (a zram device capped by a cgroup v1 blkio throttle, created here and removed), over
rw x bs x iodepth x numjobs x fsync. Prints each point's IOPS and bandwidth ratio and whether
volbench's I/O count matches the kernel's /sys/block counters.

Usage (root):  python3 bench/fio_crosscheck.py [--runtime 3] [--iops 2000] [--mbps 32]
"""
import argparse, itertools, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_fio import ROOT, VB  # noqa: E402

RW = ["randread", "randwrite", "randrw", "read", "write"]
BS = ["4k", "64k", "1m"]
QD = [1, 32]
NJ = [1, 2]
FSYNC = [0, 1]


def stat(name):
    v = [int(x) for x in open(f"/sys/block/{name}/stat").read().split()]
    return v[0] + v[1] + v[4] + v[5]


def in_cgroup(cg, cmd):
    script = f'echo $$ > {cg}/cgroup.procs && exec "$0" "$@"'
    out = subprocess.run(["sh", "-c", script] + cmd, capture_output=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr.decode()}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--iops", type=int, default=2000, help="throttle: IOPS per direction")
    ap.add_argument("--mbps", type=int, default=32, help="throttle: MiB/s per direction")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    z = subprocess.run(["zramctl", "--find", "--size", "512M"], capture_output=True, text=True, check=True).stdout.strip()
    name = os.path.basename(z)
    cg = f"/sys/fs/cgroup/blkio/volbench-crosscheck-{os.getpid()}"
    os.makedirs(cg)
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={z}", "bs=1M", "count=512", "oflag=direct", "status=none"], check=True)
        dev = os.stat(z).st_rdev
        mm = f"{os.major(dev)}:{os.minor(dev)}"
        for f, v in [("read_iops", args.iops), ("write_iops", args.iops),
                     ("read_bps", args.mbps << 20), ("write_bps", args.mbps << 20)]:
            open(f"{cg}/blkio.throttle.{f}_device", "w").write(f"{mm} {v}")
        print(f"# fio cross-check on {z}, capped at {args.iops} IOPS and {args.mbps} MiB/s per direction, {args.runtime} s per run\n")
        print("| rw | bs | QD | jobs | fsync | fio IOPS | volbench IOPS | IOPS ratio | BW ratio | kernel I/Os vs volbench |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        worst = 0.0
        with tempfile.TemporaryDirectory() as d:
            for rw, bs, qd, nj, fs in itertools.product(RW, BS, QD, NJ, FSYNC):
                if fs and "write" not in rw and rw != "randrw":
                    continue
                job = os.path.join(d, "x.fio")
                open(job, "w").write(
                    f"[x]\nfilename={z}\nrw={rw}\nrwmixread=70\nbs={bs}\niodepth={qd}\nnumjobs={nj}\n"
                    f"fsync={fs}\nioengine=libaio\ndirect=1\nruntime={args.runtime}\ntime_based\ngroup_reporting\n")
                theirs = in_cgroup(cg, ["fio", job, "--output-format=json"])["jobs"][0]
                before = stat(name)
                ours = in_cgroup(cg, [VB, "run", job, "--output-format=json", "-q", "--allow-destructive", "--no-store"])["jobs"][0]
                kernel = stat(name) - before
                t = lambda j, k: j["read"][k] + j["write"][k]
                r_iops = t(ours, "iops") / max(t(theirs, "iops"), 1e-9)
                r_bw = t(ours, "bw_bytes") / max(t(theirs, "bw_bytes"), 1e-9)
                ios = t(ours, "total_ios")
                worst = max(worst, abs(r_iops - 1), abs(r_bw - 1))
                print(f"| {rw} | {bs} | {qd} | {nj} | {fs} | {t(theirs, 'iops'):,.0f} | {t(ours, 'iops'):,.0f} | "
                      f"{r_iops:.3f} | {r_bw:.3f} | {kernel} vs {ios} |", flush=True)
        print(f"\nlargest deviation from fio: {worst * 100:.1f} %")
    finally:
        os.rmdir(cg)
        subprocess.run(["zramctl", "--reset", z])


if __name__ == "__main__":
    main()
