#!/usr/bin/env python3
"""`volbench fsync` against fio on the same directory, alternating, printing syncs/s ratios.

Each durable-write method is run by fio with the equivalent options (psync, QD1 per thread,
random 4k writes over a file of the same size in the same directory):
  fsync            fio --fsync=1
  fdatasync        fio --fdatasync=1
  odsync           fio --sync=dsync
  direct-fdatasync fio --direct=1 --fdatasync=1
For fio, syncs/s is the write IOPS (one sync per write). Medians of --reps runs each.

volbench lays out a fresh file for every run (written whole, synced; removed after); fio is
given the same: its file is deleted, written whole by a sequential fio pass, and synced, and
both wait --settle seconds
after syncing the file system before starting. On a disk mounted with `discard` or a
thin-provisioned virtual disk, a reused file and a fresh one differ by up to 1.5x, so the
conditions must match.

With --loop (root), the directory is an ext4 file system on a loop device over a file in
/dev/shm: no other I/O, no discard, no host cache, and (unlike zram) no compression, so the
work per write does not depend on the data: the tools' agreement shows without the noise of a
shared virtual disk. A device flush there is an fsync of the tmpfs file. With --zram, ext4 on
zram: there zram compresses every written page, and the cost depends on the data (fio's
default buffers cost LZO 24 % of the machine's time, volbench's incompressible ones 6 %), so
it compares the data, not the sync.

Usage:  python3 bench/fsync_vs_fio.py [--dir /var/tmp | --loop | --zram] [--runtime 5] [--reps 3]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")
FIO_OPTS = {
    "fsync": ["--fsync=1"],
    "fdatasync": ["--fdatasync=1"],
    "odsync": ["--sync=dsync"],
    "direct-fdatasync": ["--direct=1", "--fdatasync=1"],
}


def out_of(cmd):
    p = subprocess.run(cmd, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    return p.stdout


def settle(secs):
    os.sync()
    time.sleep(secs)


def fio(d, method, threads, runtime, size):
    f = os.path.join(d, "fio-fsync.dat")
    if os.path.exists(f):
        os.remove(f)
    # Written whole first, as volbench lays out its file: fio itself would only fallocate a
    # file for a write job, and every write into an unwritten extent then costs a journal
    # commit, which measures extent conversion rather than the sync.
    out_of(["fio", "--name=fill", f"--filename={f}", f"--size={size}", "--rw=write", "--bs=1m",
            "--end_fsync=1", "--output-format=json"])
    cmd = ["fio", "--name=b", f"--filename={f}", f"--size={size}", "--rw=randwrite", "--bs=4k",
           "--ioengine=psync", "--iodepth=1", f"--numjobs={threads}", "--group_reporting",
           f"--runtime={runtime}", "--time_based", "--output-format=json"] + FIO_OPTS[method]
    j = json.loads(out_of(cmd))["jobs"][0]
    return j["write"]["iops"]


def volbench(d, method, threads, runtime, size):
    cmd = [VB, "fsync", d, "--methods", method, "--bs", "4k", "--threads", str(threads),
           "--runtime", f"{runtime}s", "--size", size, "--no-penalty", "--no-store", "-q",
           "--output-format", "json"]
    c = json.loads(out_of(cmd))["cases"][0]
    return c["syncs_per_sec"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", default="256m")
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--zram", action="store_true")
    ap.add_argument("--loop", action="store_true")
    a = ap.parse_args()
    dev = None
    img = "/dev/shm/fsyncbench-loop.img"
    if a.zram or a.loop:
        if a.zram:
            dev = subprocess.run(["zramctl", "--find", "--size", "1G"], capture_output=True,
                                 text=True, check=True).stdout.strip()
        else:
            subprocess.run(["truncate", "-s", "1G", img], check=True)
            dev = subprocess.run(["losetup", "--find", "--show", img], capture_output=True,
                                 text=True, check=True).stdout.strip()
        subprocess.run(["udevadm", "settle"])
        subprocess.run(["mkfs.ext4", "-q", dev], check=True)
        a.dir = tempfile.mkdtemp(prefix="fsyncbench-mnt-")
        subprocess.run(["mount", dev, a.dir], check=True)
    d = tempfile.mkdtemp(dir=a.dir, prefix="fsyncbench-")
    print(f"target: {d}" + (f" (ext4 on {dev})" if dev else ""))
    print(f"| method | threads | fio syncs/s | volbench syncs/s | volbench/fio |")
    print(f"|---|---:|---:|---:|---:|")
    try:
        for method in FIO_OPTS:
            for threads in (1, 4):
                f, v = [], []
                for _ in range(a.reps):  # alternate so drift hits both tools alike
                    settle(a.settle)
                    f.append(fio(d, method, threads, a.runtime, a.size))
                    settle(a.settle)
                    v.append(volbench(d, method, threads, a.runtime, a.size))
                fm, vm = statistics.median(f), statistics.median(v)
                print(f"| {method} | {threads} | {fm:,.0f} | {vm:,.0f} | {vm / fm:.3f} |", flush=True)
    finally:
        subprocess.run(["rm", "-rf", d])
        if dev:
            subprocess.run(["umount", a.dir])
            os.rmdir(a.dir)
            if a.zram:
                subprocess.run(["udevadm", "settle"])
                subprocess.run(["zramctl", "--reset", dev])
            else:
                subprocess.run(["losetup", "-d", dev])
                os.remove(img)


if __name__ == "__main__":
    main()
