#!/usr/bin/env python3
"""fio's job files and command lines from projects volbench's tests never saw, through both
tools: which fio 3.33 parses, which volbench parses, and why volbench refuses the rest.

    python3 bench/corpus.py DIR [--volbench PATH] [--markdown]

DIR holds `*.fio`/`*.job` job files and `*.cmd` files (one fio command line each, without
`fio`). Files named `global*` are includes, not jobs. The variables some files take from
the environment get the values below, for both tools. Prints a table and the agreement rate
(docs/fio-compatibility.md keeps the last one).
"""
import argparse
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What the files' authors set in their environment: plausible values, the same for both.
ENV = {
    "BLOCK_SIZE": "256k", "RUN_TIME": "30", "SIZE_GIB": "1", "IO_ENGINE": "psync",
    "APP_WORKERS": "4", "DIRECT": "0", "JOB": "1", "DEPTH": "4", "DEV": "/tmp/corpus.dev",
}

# volbench's refusals that name a system this machine does not have (fio needs it too).
EXTERNAL = ("rbd", "io_uring_cmd", "zoned", "zonemode")


def run(cmd, cwd):
    env = dict(os.environ, **ENV, VOLBENCH_STORE=os.path.join(cwd, "corpus-store.db"))
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    text = (p.stderr + p.stdout).strip()
    line = next((l for l in text.splitlines() if "error" in l.lower()), "")
    # fio --parse-only exits 0 even where it printed a parse error for a job it dropped.
    failed = p.returncode != 0 or "fio: failed parsing" in text or "job " in text and "dropped" in text
    return not failed, line


def args_of(path):
    if path.endswith(".cmd"):
        return shlex.split(open(path).read())
    return [path]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--volbench", default=os.path.join(ROOT, "target", "debug", "volbench"))
    a = ap.parse_args()
    d = os.path.abspath(a.dir)
    files = sorted(
        f for f in os.listdir(d)
        if f.endswith((".fio", ".job", ".cmd")) and not f.startswith("global")
    )
    rows, fio_ok, both, external = [], 0, 0, 0
    for f in files:
        path = os.path.join(d, f)
        args = args_of(path)
        fok, fline = run(["fio", "--parse-only", *args], d)
        vok, vline = run([a.volbench, "run", *args, "--parse-only"], d)
        ext = not vok and any(w in vline for w in EXTERNAL)
        fio_ok += fok
        both += fok and vok
        external += fok and ext
        why = "" if vok else vline.replace("|", "\\|")[:160]
        rows.append((f, "yes" if fok else "no", "yes" if vok else "no", why))
    print("| file | fio 3.33 parses | volbench parses | volbench's reason |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print(f"{len(files)} files; fio parses {fio_ok}; volbench parses {both} of those "
          f"({100 * both / max(fio_ok, 1):.0f} %); {external} of the refusals need a system "
          f"this machine does not have")
    return 0


if __name__ == "__main__":
    sys.exit(main())
