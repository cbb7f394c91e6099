#!/usr/bin/env python3
"""A/B of two volbench binaries on one device: randread 4k QD1 io_uring, 2 s, five alternating
runs each; prints median IOPS and CPU per I/O (wait4). Usage: ab_runner_qd1.py DEVICE BIN_A BIN_B."""
import os, subprocess, json, sys, time, statistics
dev = sys.argv[1]; bins = sys.argv[2:]
res = {b: [] for b in bins}
for rep in range(5):
    for b in bins:
        p = subprocess.Popen([b, "run", "--filename=" + dev, "--rw=randread", "--bs=4k", "--iodepth=1",
                              "--ioengine=io_uring", "--runtime=2s", "--time_based", "--no-store",
                              "--output-format=volbench-json", "-q"], stdout=subprocess.PIPE)
        out = p.stdout.read(); _, st, ru = os.wait4(p.pid, 0)
        j = json.loads(out); ios = j["group"]["read"]["total_ios"]
        cpu = ru.ru_utime + ru.ru_stime
        res[b].append((ios / 2.0, cpu / ios * 1e6))
for b, v in res.items():
    print(b, "IOPS median", statistics.median(x[0] for x in v), "CPU us/IO median", round(statistics.median(x[1] for x in v), 2))
