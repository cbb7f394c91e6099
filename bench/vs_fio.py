#!/usr/bin/env python3
"""volbench against fio, side by side, alternating, on the same targets; prints ratios.

Targets: a zram RAM block device (created here and removed; where the tool's own overhead
shows) and a file on the real disk (where the device limit shows). Each case runs fio then
volbench, `--reps` times, and compares the medians. CPU is the whole child process (every
thread, kernel io_uring workers included) from wait4(), so CPU per I/O is comparable.

Write data: volbench writes fresh data for every write by default; fio's default
(`scramble_buffers`) fills each buffer once and changes a few bytes per 512. `--fio-data
refill` gives fio `--refill_buffers` (fresh data for every write, as volbench's): the honest
comparison of what each tool costs to write data nothing can flatter.

Usage (root, for zram):  python3 bench/vs_fio.py [--runtime 5] [--reps 3] [--dir /var/tmp]
                                                 [--fio-data default|refill]
`--metrics` runs volbench alone instead, with and without `--metrics-listen` (scraped once a
second, as Prometheus would), alternating, and prints the CPU per I/O of each.
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")


def run(cmd):
    """Runs cmd; returns (stdout, cpu seconds of the whole process, peak RSS in KiB)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err.decode()}")
    return out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


FIO_DATA = []  # extra fio options for its write data (--fio-data)


def fio(target, rw, bs, qd, engine, runtime, size):
    cmd = ["fio", "--name=bench", f"--filename={target}", f"--rw={rw}", f"--bs={bs}",
           f"--iodepth={qd}", f"--ioengine={engine}", "--direct=1", f"--runtime={runtime}",
           "--time_based", f"--size={size}", "--output-format=json"] + FIO_DATA
    out, cpu, rss = run(cmd)
    j = json.loads(out)["jobs"][0]
    d = j["write"] if "write" in rw else j["read"]
    return d["iops"], d["total_ios"], cpu, rss


def volbench(target, rw, bs, qd, engine, runtime, size, extra=()):
    cmd = [VB, "run", f"--filename={target}", f"--rw={rw}", f"--bs={bs}", f"--iodepth={qd}",
           f"--ioengine={engine}", "--direct=1", f"--runtime={runtime}s", "--time_based",
           f"--size={size}", "--output-format=json", "-q", "--allow-destructive", "--no-store",
           *extra]
    out, cpu, rss = run(cmd)
    j = json.loads(out)["group"]
    d = j["write"] if "write" in rw else j["read"]
    return d["iops"], d["total_ios"], cpu, rss


CASES = [  # (rw, bs, iodepth, engine)
    ("randread", "4k", 1, "io_uring"),
    ("randread", "4k", 32, "io_uring"),
    ("randread", "4k", 1, "libaio"),
    ("randread", "4k", 32, "libaio"),
    ("randread", "4k", 1, "psync"),
    ("randwrite", "4k", 32, "io_uring"),
    ("write", "1m", 8, "io_uring"),
]


def compare(label, target, size, args):
    print(f"\n## {label}: {target}\n")
    print("| case | fio IOPS | volbench IOPS | IOPS ratio | fio CPU µs/IO | volbench CPU µs/IO | CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for rw, bs, qd, engine in CASES:
        f_iops, v_iops, f_cpu, v_cpu = [], [], [], []
        for _ in range(args.reps):
            i, n, c, _ = fio(target, rw, bs, qd, engine, args.runtime, size)
            f_iops.append(i); f_cpu.append(c / n * 1e6)
            i, n, c, _ = volbench(target, rw, bs, qd, engine, args.runtime, size)
            v_iops.append(i); v_cpu.append(c / n * 1e6)
        fi, vi = statistics.median(f_iops), statistics.median(v_iops)
        fc, vc = statistics.median(f_cpu), statistics.median(v_cpu)
        print(f"| {rw} {bs} QD{qd} {engine} | {fi:,.0f} | {vi:,.0f} | {vi/fi:.2f} | "
              f"{fc:.2f} | {vc:.2f} | {vc/fc:.2f} |", flush=True)


def scrape_every_second(port, stop):
    """A scraper as Prometheus is one: GET /metrics once a second until stopped."""
    while not stop.wait(1.0):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1).read()
        except OSError:
            pass


def metrics_cost(label, target, size, args):
    """volbench alone against volbench with --metrics-listen scraped every second, alternating."""
    print(f"\n## --metrics-listen scraped every second vs off: {label}\n")
    print("| case | CPU µs/IO off | CPU µs/IO on | on/off |")
    print("|---|---:|---:|---:|")
    for rw, bs, qd, engine in CASES:
        off, on = [], []
        for _ in range(args.reps):
            _, n, c, _ = volbench(target, rw, bs, qd, engine, args.runtime, size)
            off.append(c / n * 1e6)
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            stop = threading.Event()
            t = threading.Thread(target=scrape_every_second, args=(port, stop))
            t.start()
            try:
                _, n, c, _ = volbench(target, rw, bs, qd, engine, args.runtime, size,
                                      [f"--metrics-listen=127.0.0.1:{port}"])
            finally:
                stop.set()
                t.join()
            on.append(c / n * 1e6)
        a, b = statistics.median(off), statistics.median(on)
        print(f"| {rw} {bs} QD{qd} {engine} | {a:.3f} | {b:.3f} | {b/a:.3f} |", flush=True)


def ceiling(args):
    print("\n## Tool ceiling: null engine (no I/O), 4k, QD32, one job\n")
    print("| tool | IOPS | IOPS per CPU-second | peak RSS |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        t = os.path.join(d, "null.test")
        for name, fn in (("fio", fio), ("volbench", volbench)):
            i, n, c, rss = fn(t, "randread", "4k", 32, "null", args.runtime, "1g")
            print(f"| {name} | {i:,.0f} | {n / c:,.0f} | {rss / 1024:.1f} MiB |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", type=int, default=5, help="seconds per run")
    ap.add_argument("--reps", type=int, default=3, help="alternating repetitions per case")
    ap.add_argument("--dir", default="/var/tmp", help="directory on the real disk")
    ap.add_argument("--skip-zram", action="store_true")
    ap.add_argument("--skip-disk", action="store_true")
    ap.add_argument("--metrics", action="store_true",
                    help="instead: volbench with --metrics-listen scraped each second against without")
    ap.add_argument("--fio-data", choices=["default", "refill"], default="default",
                    help="fio's write data: its default, or --refill_buffers")
    args = ap.parse_args()
    if args.fio_data == "refill":
        FIO_DATA.append("--refill_buffers")
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    print(f"# volbench vs {subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()}"
          f", {args.runtime} s per run, median of {args.reps}, kernel {os.uname().release}, {os.cpu_count()} CPUs"
          f", fio's data: {args.fio_data}")
    if not args.metrics:
        ceiling(args)
    if not args.skip_zram:
        z = subprocess.run(["zramctl", "--find", "--size", "1G"], capture_output=True, text=True, check=True).stdout.strip()
        try:
            # Incompressible data, so zram stores and copies real pages (zeros would be free).
            subprocess.run(["dd", "if=/dev/urandom", f"of={z}", "bs=1M", "count=1024", "oflag=direct", "status=none"], check=True)
            label = "zram (RAM block device: the tools' overhead shows)"
            (metrics_cost if args.metrics else compare)(label, z, "1g", args)
        finally:
            # udev may still hold the device for a moment: settle, and retry the reset.
            if shutil.which("udevadm"):
                subprocess.run(["udevadm", "settle"])
            # Quiet while retrying (an EBUSY that the next try clears is not a failure); the
            # last try says why it failed.
            for k in range(10):
                err = None if k == 9 else subprocess.DEVNULL
                if subprocess.run(["zramctl", "--reset", z], stderr=err).returncode == 0:
                    break
                time.sleep(0.5)
    if not args.skip_disk:
        with tempfile.TemporaryDirectory(dir=args.dir) as d:
            f = os.path.join(d, "bench.test")
            run([VB, "run", f"--filename={f}", "--size=1g", "--rw=read", "--bs=1m", "--runtime=1s", "-q", "--no-store"])
            label = "file on the real disk (the device limit shows)"
            (metrics_cost if args.metrics else compare)(label, f, "1g", args)


if __name__ == "__main__":
    main()
