#!/usr/bin/env python3
"""fio's latency-target search, run by fio and by volbench on the same job, alternating.

A zram device behind a cgroup read-IOPS cap (`volbench emulate --iops`): the cap lets each
throttle slice's first I/Os through at once and holds the rest to the next slice, so the
share of I/Os within the target falls as the queue deepens, and the search has a real
answer. Each tool runs the same fio job file (randread 4k, io_uring, iodepth 32,
latency_target, latency_window=1s, latency_percentile); the script prints, per run, the
depth each found, the IOPS and latency p50/p90 of its final windows, how long those windows
ran and the whole job's wall time, then the medians and volbench's depth over fio's.

Usage (root):  python3 bench/lat_target_vs_fio.py [--iops 2000] [--target 2250us]
               [--percentile 90] [--reps 3]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, env=dict(os.environ, VOLBENCH_STORE="/tmp/vb-bench.db"))
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    return p.stdout.decode()


def fio_json(text):
    return json.loads(text[text.index("{\n"):])


def one(tool, dev, iops, job):
    cmd = [VB, "emulate", "--device", dev, "--iops", str(iops), "--"]
    if tool == "fio":
        cmd += ["fio", "--output-format=json", job]
    else:
        cmd += [VB, "run", job, "--output-format=json", "-q", "--no-store"]
    t0 = time.monotonic()
    j = fio_json(sh(cmd))["jobs"][0]
    wall = time.monotonic() - t0
    pct = j["read"]["lat_ns"].get("percentile", {})
    p = lambda k: pct.get(k, 0) / 1e6
    return {"depth": j["latency_depth"], "iops": j["read"]["iops"],
            "p50_ms": p("50.000000"), "p90_ms": p("90.000000"),
            "final_s": j["job_runtime"] / 1e3, "wall_s": wall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iops", type=int, default=2000)
    ap.add_argument("--target", default="2250us")
    ap.add_argument("--percentile", default="90")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    dev = sh(["zramctl", "--find", "--size", "256M"]).strip()
    try:
        with open(dev, "wb") as f:
            for _ in range(256):
                f.write(os.urandom(1 << 20))
        with tempfile.NamedTemporaryFile("w", suffix=".fio", delete=False) as f:
            f.write(f"[lt]\nfilename={dev}\ndirect=1\nioengine=io_uring\nrw=randread\nbs=4k\n"
                    f"iodepth=32\nruntime=60\ntime_based=1\nlat_percentiles=1\n"
                    f"latency_target={a.target}\nlatency_window=1s\n"
                    f"latency_percentile={a.percentile}\n")
            job = f.name
        rows = {"fio": [], "volbench": []}
        print(f"zram {dev} capped at {a.iops} read IOPS; latency_target={a.target} "
              f"p{a.percentile}, iodepth=32, window 1s")
        print(f"{'tool':9} {'depth':>5} {'IOPS':>7} {'p50 ms':>7} {'p90 ms':>7} "
              f"{'final s':>7} {'wall s':>6}")
        for _ in range(a.reps):
            for tool in ("fio", "volbench"):
                r = one(tool, dev, a.iops, job)
                rows[tool].append(r)
                print(f"{tool:9} {r['depth']:>5} {r['iops']:>7.0f} {r['p50_ms']:>7.3f} "
                      f"{r['p90_ms']:>7.3f} {r['final_s']:>7.1f} {r['wall_s']:>6.1f}")
        med = {t: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for t, rs in rows.items()}
        for t, m in med.items():
            print(f"median {t:9} depth {m['depth']:.0f}, {m['iops']:.0f} IOPS, "
                  f"search+final {m['wall_s']:.1f} s")
        print(f"volbench/fio depth {med['volbench']['depth'] / med['fio']['depth']:.2f}, "
              f"IOPS {med['volbench']['iops'] / med['fio']['iops']:.2f}")
    finally:
        for _ in range(30):
            if subprocess.run(["zramctl", "--reset", dev], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)


if __name__ == "__main__":
    main()
