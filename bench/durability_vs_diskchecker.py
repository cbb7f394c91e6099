#!/usr/bin/env python3
"""Acknowledged records per second: `volbench durability create` against diskchecker.pl on
the same disk, alternating; prints the ratio.

diskchecker.pl is not shipped with volbench (it is Brad Fitzpatrick's script, gist 3172656):
pass its path. Both witnesses run on this machine over loopback; volbench's journal goes to
/dev/shm, standing in for the separate machine a witness runs on (diskchecker's server keeps
its state in memory and never syncs, so this is the fair pairing).

diskchecker writes 16 KiB pages with fsync, one thread; volbench is run the same way
(--threads 1 --block 16k --sync fsync) and with its defaults (4 threads, 4k, fdatasync).

Usage:  python3 bench/durability_vs_diskchecker.py --diskchecker /path/diskchecker.pl
            [--dir /var/tmp] [--seconds 10] [--reps 3]
"""
import argparse, os, re, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")


def diskchecker(dc, d, secs, port):
    srv = subprocess.Popen(["perl", dc, "-l", str(port)], cwd=d, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    f = os.path.join(d, "dc-perl.dat")
    cli = subprocess.Popen(["perl", dc, "-s", f"127.0.0.1:{port}", "create", f, "256"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(secs)
    cli.send_signal(signal.SIGKILL)
    out = cli.communicate()[0]
    srv.kill()
    srv.wait()
    os.remove(f)
    # "running N sec, ... (W writes; R/s)": the last line's writes over its seconds.
    m = re.findall(r"running (\d+) sec.*\((\d+) writes", out)
    sec, writes = m[-1]
    return int(writes) / int(sec)


def vb(d, secs, extra):
    j = tempfile.mkdtemp(dir="/dev/shm", prefix="vbwitness-")
    srv = subprocess.Popen([VB, "durability", "serve", "--listen", "127.0.0.1:0", "--journal",
                            os.path.join(j, "w.db")], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    w = srv.stdout.readline().split()
    addr, token = w[3], w[5]
    f = os.path.join(d, "dc-vb.dat")
    out = subprocess.run([VB, "durability", "create", "--witness", addr, "--token", token, f,
                          "--size", "256m", "--runtime", f"{secs}s"] + extra,
                         capture_output=True, text=True)
    srv.kill()
    srv.wait()
    os.remove(f)
    subprocess.run(["rm", "-rf", j])
    if out.returncode != 0:
        sys.exit(out.stderr)
    m = re.search(r"\(([\d.]+)/s\)", out.stdout)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--diskchecker", required=True)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    d = tempfile.mkdtemp(dir=a.dir, prefix="dcbench-")
    dc, same, default = [], [], []
    try:
        for i in range(a.reps):
            dc.append(diskchecker(a.diskchecker, d, a.seconds, 5400 + i))
            same.append(vb(d, a.seconds, ["--threads", "1", "--block", "16k", "--sync", "fsync"]))
            default.append(vb(d, a.seconds, []))
    finally:
        subprocess.run(["rm", "-rf", d])
    m = statistics.median
    print("| tool | records/s (median) | ratio to diskchecker.pl |")
    print("|---|---:|---:|")
    print(f"| diskchecker.pl (1 thread, 16k, fsync) | {m(dc):,.0f} | 1.00 |")
    print(f"| volbench, 1 thread, 16k, fsync | {m(same):,.0f} | {m(same) / m(dc):.2f} |")
    print(f"| volbench, defaults (4 threads, 4k, fdatasync) | {m(default):,.0f} | {m(default) / m(dc):.2f} |")


if __name__ == "__main__":
    main()
