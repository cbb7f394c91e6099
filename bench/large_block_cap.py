#!/usr/bin/env python3
"""1 GiB direct writes under OCI's emulated cap (issue 65, item 3): volbench against fio psync
on the same zram device, emulated as OCI's balanced volume (10 VPU, 1,000 GB: 458 MiB/s),
alternating, after one unmeasured pass that writes the whole range once.

  python3 bench/large_block_cap.py --rounds 4

Why the first pass: zram allocates its memory on a block's first write, and the first 5 GiB
written to a fresh device took up to 5 s an I/O for either tool (fio read 364 MiB/s first,
volbench 226-264: the figure issue 65 reported). A cloud volume has no such first touch.
"""
import argparse
import json
import statistics
import subprocess
import os

HERE = os.path.dirname(os.path.abspath(__file__))
VOLBENCH = os.path.join(HERE, "..", "target", "release", "volbench")
JOB = ["--rw=write", "--bs=1G", "--size=5g", "--iodepth=1"]


def zram(size):
    n = open("/sys/class/zram-control/hot_add").read().strip()
    open(f"/sys/block/zram{n}/disksize", "w").write(size)
    return n


def remove(n):
    import time
    for _ in range(50):
        try:
            open(f"/sys/block/zram{n}/reset", "w").write("1")
            break
        except OSError:
            time.sleep(0.1)  # udev holds a device briefly after a write
    open("/sys/class/zram-control/hot_remove", "w").write(n)


def under_cap(dev, cmd):
    e = [VOLBENCH, "emulate", "--device", dev, "--model", "oci", "--vpu", "10", "--size", "1000g", "--"]
    out = subprocess.run(e + cmd, check=True, capture_output=True, text=True).stdout
    w = json.loads(out)["jobs"][0]["write"]
    return w["bw_bytes"] / 2**20


def fio(dev):
    return under_cap(dev, ["fio", "--name=w", f"--filename={dev}", "--direct=1", "--ioengine=psync",
                           "--output-format=json"] + JOB)


def volbench(dev):
    return under_cap(dev, [VOLBENCH, "run", f"--filename={dev}", "--allow-destructive", "--no-store",
                           "--output-format=json"] + JOB)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    n = zram("7G")
    dev = f"/dev/zram{n}"
    try:
        fio(dev)  # the first touch, not measured
        f, v = [], []
        for i in range(a.rounds):
            f.append(fio(dev))
            v.append(volbench(dev))
            print(f"round {i + 1}: fio {f[-1]:.0f} MiB/s, volbench {v[-1]:.0f} MiB/s", flush=True)
        fm, vm = statistics.median(f), statistics.median(v)
        print(f"median: fio {fm:.0f} MiB/s, volbench {vm:.0f} MiB/s, volbench/fio {vm / fm:.3f} (cap 458)")
    finally:
        remove(n)


if __name__ == "__main__":
    main()
