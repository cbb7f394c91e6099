#!/usr/bin/env python3
"""What `volbench infer` costs in I/O time, and how close it lands, on volumes with known caps.

No other tool infers a volume's caps, so there is no peer to alternate with: the reference is
the caps themselves. Each case builds a volume on a zram device with `volbench emulate` and
runs `volbench infer` on it with its defaults (the burst time raised where the burst is longer
than 20 s), printing the I/O seconds the probe spent, the burst phase against the drain time,
and each limit found against the one set.

  static   random IOPS (1,500-5,000) and bandwidth (crossover 12-96 KiB) caps, no burst
           (goal: caps in under 60 s of I/O)
  bucket   a random I/O-credit bucket draining in 12-30 s
           (goal: the burst phase within the drain time plus 20 %)

Needs root (zram, cgroups) and a release build.

Usage:  sudo python3 bench/infer_cost.py [--reps 3] [--seed N]
"""
import argparse, json, os, random, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")


def sh(*a):
    return subprocess.run(a, check=True, capture_output=True, text=True).stdout.strip()


def infer(dev, emulate, extra):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "infer.json")
        cmd = [VB, "emulate", "--device", dev, *emulate, "--",
               VB, "infer", dev, "--no-store", "-q", "--output-format", "json", "--output", out, *extra]
        subprocess.run(cmd, check=True, capture_output=True)
        return json.load(open(out))


def pct(got, want):
    return f"{(got / want - 1) * 100:+.1f} %" if got and want else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if not os.path.exists(VB):
        sys.exit("build first: cargo build --release")
    dev = sh("zramctl", "--find", "--size", "1G")
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={dev}", "bs=1M", "count=1024", "oflag=direct", "status=none"], check=True)
        print("case    set                              found                            I/O s  burst phase / drain")
        for _ in range(a.reps):
            iops = round(rng.uniform(1500, 5000))
            bw = round(iops * rng.uniform(12, 96) * 1024)
            r = infer(dev, ["--iops", str(iops), "--bw", str(bw)], [])
            l = r["limits"]
            print(f"static  {iops:5d} IOPS {bw / 1048576:7.1f} MiB/s        "
                  f"IOPS {pct(l['iops_cap'], iops):>8}  bw {pct(l['bw_cap_bytes'], bw):>8}      "
                  f"{r['io_time_s']:5.1f}  -")
        for _ in range(a.reps):
            burst = round(rng.uniform(3000, 5000))
            base = round(rng.uniform(800, 1500))
            secs = rng.uniform(12, 30)
            bucket = round((burst - base) * secs)
            r = infer(dev, ["--burst-iops", str(burst), "--baseline-iops", str(base), "--bucket-ios", str(bucket)],
                      ["--burst-time", str(int(secs * 2)) + "s"])
            b = r["limits"]["burst"] or {}
            phase = next(p for p in r["points"] if p["phase"] == "burst")
            print(f"bucket  {burst}->{base} IOPS, {secs:4.1f} s         "
                  f"burst {pct(b.get('burst_iops'), burst):>7} base {pct(b.get('baseline_iops'), base):>7} "
                  f"dur {pct(b.get('duration_s'), secs):>7}  {r['io_time_s']:5.1f}  "
                  f"{phase['runtime_s']:.1f} / {secs:.1f} s = {phase['runtime_s'] / secs:.2f}")
    finally:
        subprocess.run(["udevadm", "settle"])
        for _ in range(10):
            if subprocess.run(["zramctl", "--reset", dev]).returncode == 0:
                break
            time.sleep(0.5)


if __name__ == "__main__":
    main()
