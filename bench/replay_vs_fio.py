#!/usr/bin/env python3
"""Replay fidelity: volbench replay against fio's read_iolog, the same trace on the same zram
device, alternating, at the trace's own speed (1x) and as fast as possible (max); and the peak
memory of a 10-million-I/O replay.

The lag is measured the same way for both, from outside: `volbench trace record` watches the
device while each tool replays (the kernel's block_bio_queue time of each I/O, in µs; fio
refuses write_iolog during a replay), and an I/O's lag is how much later than the trace's time
it reached the block layer, both counted from the first I/O. "span" is the issue span over the
trace's (1.00: on time); "wall" is the tool's whole run. At max speed there is no due time:
span there is the wall time over the trace's length.

Usage (root):  python3 bench/replay_vs_fio.py [--ios 20000] [--iops 5000] [--reps 3]
               [--big 10000000]   (0 skips the 10M-I/O memory figure)
"""
import argparse, collections, os, random, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")
ENV = dict(os.environ, VOLBENCH_STORE=os.path.join(tempfile.gettempdir(), "bench-replay.db"))


def trace(path, dev, ios, iops, seed=7):
    """fio's iolog v3 on `dev`: Poisson arrivals at `iops`, 70 % 4 KiB random reads, 30 %
    writes of 4 to 64 KiB, in 1 GiB. Returns [(µs, op, offset, len)]."""
    rnd = random.Random(seed)
    t = 1.0
    out = []
    with open(path, "w") as f:
        f.write(f"fio version 3 iolog\n1 {dev} add\n1 {dev} open\n")
        for _ in range(ios):
            t += rnd.expovariate(iops / 1e6)
            us = int(t)
            if rnd.random() < 0.7:
                io = (us, "R", rnd.randrange(262144) * 4096, 4096)
            else:
                io = (us, "W", rnd.randrange(262144) * 4096, 4096 << rnd.randrange(5))
            out.append(io)
            f.write(f"{us} {dev} {'read' if io[1] == 'R' else 'write'} {io[2]} {io[3]}\n")
        f.write(f"{out[-1][0] + 1} {dev} close\n")
    return out


def recorded(path):
    """[(µs, op, offset, len)] of the reads and writes a volbench recording saw."""
    out = []
    for line in open(path):
        p = line.split()
        if line.startswith("#") or len(p) != 6 or p[1] not in ("R", "W", "WF"):
            continue
        out.append((int(p[0]) / 1000, p[1][0], int(p[2]), int(p[3])))
    return out


def lag_figures(tr, seen):
    """Each trace I/O matched to the device's sighting of the same (op, offset, len), in
    order of occurrence (a tool's own other reads, such as volbench's check for a file
    system, match nothing and are left out); its lag against the trace's time, both counted
    from the first I/O."""
    by_key = collections.defaultdict(collections.deque)
    for io in seen:
        by_key[io[1:]].append(io[0])
    got = []
    for io in tr:
        q = by_key.get(io[1:])
        if not q:
            sys.exit(f"the device never saw the trace's {io}")
        got.append(q.popleft())
    t0, g0 = tr[0][0], min(got)
    lags = sorted(max(0.0, (g - g0) - (t[0] - t0)) for t, g in zip(tr, got))
    pick = lambda q: lags[min(len(lags) - 1, int(q * len(lags)))]
    span = (max(got) - g0) / max(1, tr[-1][0] - t0)
    return pick(0.5), pick(0.99), lags[-1], span


def watched(dev, log, fn):
    """Runs fn() while volbench records the device into `log`; returns fn's result."""
    rec = subprocess.Popen([VB, "trace", "record", dev, "--duration", "1h", "--output", log],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    on = f"/sys/kernel/tracing/instances/volbench-{rec.pid}/tracing_on"
    while not (os.path.exists(on) and open(on).read().strip() == "1"):
        time.sleep(0.02)
    try:
        return fn()
    finally:
        time.sleep(0.3)
        rec.send_signal(2)
        rec.wait()


def run(cmd):
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    return time.monotonic() - t


def fio(tr, dev, depth, fast):
    cmd = ["fio", "--name=replay", f"--read_iolog={tr}", "--ioengine=io_uring", "--direct=1", f"--iodepth={depth}", "--output=/dev/null"]
    if fast:
        cmd.append("--replay_no_stall=1")
    return run(cmd)


def volbench(tr, dev, depth, fast):
    cmd = [VB, "replay", tr, f"--filename={dev}", "--ioengine=io_uring", f"--iodepth={depth}",
           "--no-store", "-q", f"--speed={'max' if fast else '1'}"]
    return run(cmd)


def peak_rss(n, d):
    """Peak RSS (KiB) of replaying an n-I/O trace at max speed on the null engine."""
    tr = os.path.join(d, f"big-{n}.trace")
    with open(tr, "w") as f:
        f.write("# volbench trace v1\n# method bench\n# file 0 /dev/src\n")
        for i in range(n):
            f.write(f"{i * 1000} {'R' if i % 3 else 'W'} {(i % 65536) * 4096} 4096 {i * 1000 + 20000} 0\n")
    p = subprocess.run(["/usr/bin/time", "-f", "%M %e", VB, "replay", tr,
                        f"--filename={os.path.join(d, 'big.target')}", "--ioengine=null",
                        "--speed=max", "--no-store", "-q"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=ENV)
    rss, secs = p.stderr.decode().split()[-2:]
    return int(rss), float(secs), os.path.getsize(tr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ios", type=int, default=20000)
    ap.add_argument("--iops", type=int, default=5000)
    ap.add_argument("--depth", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--big", type=int, default=10_000_000)
    a = ap.parse_args()
    dev = subprocess.check_output(["zramctl", "--find", "--size", "1280M"]).decode().strip()
    try:
        with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
            tr = os.path.join(d, "t.iolog")
            ios = trace(tr, dev, a.ios, a.iops)
            print(f"trace: {a.ios} I/Os, Poisson at {a.iops} IOPS ({ios[-1][0] / 1e6:.2f} s), "
                  f"on {dev}, iodepth {a.depth}, io_uring, direct")
            for fast in (False, True):
                res = {"fio": [], "volbench": []}
                for _ in range(a.reps):
                    for name, fn in (("fio", fio), ("volbench", volbench)):
                        log = os.path.join(d, f"{name}.log")
                        if os.path.exists(log):
                            os.remove(log)
                        if fast:
                            # No due times to be late against: the run's length is the figure.
                            wall = fn(tr, dev, a.depth, fast)
                            p50 = p99 = mx = float("nan")
                            span = wall / (ios[-1][0] / 1e6)
                        else:
                            wall = watched(dev, log, lambda: fn(tr, dev, a.depth, fast))
                            p50, p99, mx, span = lag_figures(ios, recorded(log))
                        res[name].append((p50, p99, mx, span, wall))
                print(f"\n{'max speed' if fast else '1x (the trace timing)'}:")
                med = {}
                for name, rows in res.items():
                    m = [statistics.median(r[i] for r in rows) for i in range(5)]
                    med[name] = m
                    print(f"  {name:9} lag p50 {m[0]:8.0f} µs  p99 {m[1]:8.0f} µs  max {m[2]:8.0f} µs"
                          f"  span/trace {m[3]:.3f}  wall {m[4]:.2f} s")
                f, v = med["fio"], med["volbench"]
                lag = "" if fast else f"lag p99 {v[1] / max(f[1], 1):.3f}x, "
                print(f"  volbench/fio: {lag}span {v[3] / f[3]:.3f}x, wall {v[4] / f[4]:.2f}x")
            if a.big:
                for n in (a.big // 10, a.big):
                    rss, secs, size = peak_rss(n, d)
                    print(f"\nreplay of {n:,} I/Os ({size / 2**20:.0f} MiB trace), max speed, null "
                          f"engine: peak RSS {rss / 1024:.1f} MiB, {secs:.1f} s")
    finally:
        for _ in range(30):
            if subprocess.run(["zramctl", "--reset", dev], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)


if __name__ == "__main__":
    main()
