#!/usr/bin/env python3
"""One job file run three ways, alternating: fio (its jobs are processes), fio with `thread`
(its jobs are threads of one process, as volbench's always are), and volbench. Prints each
job's best IOPS (reads + writes) per tool, the ratios, and the TLB shootdowns each run caused
(/proc/interrupts), which is where jobs sharing one address space pay.

    python3 bench/threads_vs_processes.py JOB.fio [--rounds N] [--volbench PATH]

The job's targets should sit in a scratch directory (`--scratch`, emptied before every run,
so each tool lays out its own files).
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shootdowns():
    """The TLB shootdown interrupts so far, summed over CPUs."""
    with open("/proc/interrupts") as f:
        for line in f:
            if "TLB" in line:
                return sum(int(x) for x in line.split()[1:] if x.isdigit())
    return 0


def run(cmd, scratch):
    """`cmd`'s jobs' IOPS and the shootdowns during it, `scratch` emptied first."""
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    before = shootdowns()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    tlb = shootdowns() - before
    doc = json.loads(out[out.find("{"):])
    return {j["jobname"]: j["read"]["iops"] + j["write"]["iops"] for j in doc["jobs"]}, tlb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("job")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "vb-threads"))
    ap.add_argument("--volbench", default=os.path.join(ROOT, "target", "release", "volbench"))
    a = ap.parse_args()
    with open(a.job) as f:
        text = f.read()
    threaded = os.path.join(tempfile.mkdtemp(), "threaded.fio")
    with open(threaded, "w") as f:
        f.write("[global]\nthread\n" + text)
    tools = {
        "fio": ["fio", "--output-format=json", a.job],
        "fio thread": ["fio", "--output-format=json", threaded],
        "volbench": [a.volbench, "run", a.job, "--output-format=fio-json", "--no-store", "-q"],
    }
    best = {t: {} for t in tools}
    tlb = {t: [] for t in tools}
    for _ in range(a.rounds):
        for tool, cmd in tools.items():
            iops, n = run(cmd, a.scratch)
            tlb[tool].append(n)
            for job, v in iops.items():
                best[tool][job] = max(best[tool].get(job, 0), v)
    print("| job | fio | fio thread | volbench | volbench/fio | volbench/fio thread |")
    print("|---|---:|---:|---:|---:|---:|")
    for job, f in best["fio"].items():
        ft, v = best["fio thread"].get(job, 0), best["volbench"].get(job, 0)
        print(f"| {job} | {f:,.0f} | {ft:,.0f} | {v:,.0f} | {v / f:.2f} | {v / max(ft, 1):.2f} |")
    for tool, n in tlb.items():
        print(f"{tool}: TLB shootdowns per run {n}")


if __name__ == "__main__":
    main()
