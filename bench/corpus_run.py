#!/usr/bin/env python3
"""Real job files RUN by fio 3.33 and by volbench on the same scratch copies, alternating, and
what each did compared: the bytes of size-based jobs, and the IOPS of every job.

    python3 bench/corpus_run.py DIR [--volbench PATH] [--scratch DIR] [--rounds N]

DIR holds `*.fio` job files from projects the tests never saw (keep them out of the repo).
Each file is rewritten the same way for both tools, so it runs on this machine in seconds:
its filename/directory point into a scratch directory (a device becomes a file there), sizes
are capped at 256 MiB, runtime at 4 s, ramp_time at 1 s, numjobs at 4, loops at 2. The
scratch directory is emptied before every run, so each tool lays out its own files. Rounds
alternate fio and volbench; a job's IOPS is the best of its rounds. A job agrees when its
bytes match (size-based) and its IOPS are within 20 % of fio's (noise on 2 CPUs and one
shared disk). The verdict table goes to stdout; docs/fio-compatibility.md keeps the count.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
CAPS = {"runtime": 4, "ramp_time": 1, "numjobs": 4, "loops": 2}


def size_of(v):
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)i?b?\s*", v.lower())
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def rewrite(text, scratch):
    """The job text with its targets in `scratch` and its sizes and times capped."""
    out = []
    for line in text.splitlines():
        key, eq, val = line.partition("=")
        k = key.strip().lower()
        if not eq or k.startswith((";", "#", "[")):
            out.append(line)
            continue
        val = val.split(";")[0].split("#")[0].strip()
        if k == "filename":
            names = [os.path.basename(p.strip()) or "f" for p in val.split(":") if p.strip()]
            line = "filename=" + ":".join(os.path.join(scratch, n) for n in names)
        elif k == "directory":
            line = f"directory={scratch}"
        elif k in ("size", "filesize", "io_size", "io_limit") and not val.endswith("%"):
            n = size_of(val)
            if n is None or n > 256 << 20:
                line = f"{k}=256m"
        elif k in CAPS:
            n = re.fullmatch(r"(\d+)\s*(s|m|h)?", val.lower())
            secs = int(n.group(1)) * {None: 1, "s": 1, "m": 60, "h": 3600}[n.group(2)] if n else 0
            if not n or secs > CAPS[k]:
                line = f"{k}={CAPS[k]}"
        out.append(line)
    # A job with no target of its own gets one in scratch (fio's default is the job's name
    # in the current directory, which is scratch too).
    return "\n".join(out) + "\n"


def jobs_of(doc):
    per = []
    for j in doc.get("jobs", []):
        r, w = j["read"], j["write"]
        per.append((j["jobname"], r["io_bytes"] + w["io_bytes"], r["iops"] + w["iops"], j["error"]))
    return per


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, VOLBENCH_STORE=os.path.join(cwd, "..", "store.db")))
    except subprocess.TimeoutExpired:
        return None, "timed out"
    at = p.stdout.find("{")
    try:
        return json.loads(p.stdout[at:]) if at >= 0 else None, (p.stderr.strip().splitlines() or [""])[-1]
    except json.JSONDecodeError:
        return None, "no JSON"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--volbench", default=os.path.join(ROOT, "target", "release", "volbench"))
    ap.add_argument("--scratch", default="/tmp/corpus-run")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    src = os.path.abspath(a.dir)
    work = os.path.abspath(a.scratch)
    scratch = os.path.join(work, "s")
    files = sorted(f for f in os.listdir(src) if f.endswith((".fio", ".job")))
    print("| file | job | fio bytes | volbench bytes | fio IOPS | volbench IOPS | ratio | verdict |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    counts = {"agree": 0, "differ": 0, "fio fails": 0, "volbench refuses": 0}
    for f in files:
        text = open(os.path.join(src, f)).read()
        os.makedirs(work, exist_ok=True)
        job = os.path.join(work, "job.fio")
        open(job, "w").write(rewrite(text, scratch))
        best = {"fio": {}, "volbench": {}}
        why = {}
        for _ in range(a.rounds):
            for tool, cmd in (("fio", ["fio", "--output-format=json", job]),
                              ("volbench", [a.volbench, "run", job, "--output-format=fio-json",
                                            "--no-store", "-q"])):
                shutil.rmtree(scratch, ignore_errors=True)
                os.makedirs(scratch)
                doc, line = run(cmd, scratch)
                if doc is None or any(e for *_, e in jobs_of(doc)):
                    why[tool] = line
                    continue
                for name, b, iops, _ in jobs_of(doc):
                    old = best[tool].get(name, (b, 0.0))
                    best[tool][name] = (b, max(old[1], iops))
        if "fio" in why and not best["fio"]:
            counts["fio fails"] += 1
            print(f"| {f} | | | | | | | fio fails: {why['fio'][:80]} |")
            continue
        if not best["volbench"]:
            counts["volbench refuses"] += 1
            print(f"| {f} | | | | | | | volbench: {why.get('volbench', '')[:80]} |")
            continue
        timed = re.search(r"^\s*time_based", text, re.M) is not None
        for name, (fb, fi) in best["fio"].items():
            vb, vi = best["volbench"].get(name, (0, 0.0))
            ratio = vi / fi if fi else float("nan")
            same = timed or fb == vb
            ok = same and fi > 0 and 0.8 <= ratio <= 1.25
            counts["agree" if ok else "differ"] += 1
            print(f"| {f} | {name} | {fb} | {vb} | {fi:.0f} | {vi:.0f} | {ratio:.2f} | "
                  f"{'agree' if ok else 'DIFFER'} |")
    shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(", ".join(f"{k}: {v}" for k, v in counts.items()) + " (jobs; files for the last two)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
