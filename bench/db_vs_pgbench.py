#!/usr/bin/env python3
"""`volbench db` against pgbench at its best `-j` on the same throwaway cluster, alternating;
prints tps, client CPU per transaction, and the ratios, per client count.

pgbench runs twice per round, with -j 1 (its default) and with -j min(C, cores); the ratio is
volbench's tps over the better of the two. volbench runs with its default (-j 1) unless --jobs.
--busy N runs `nice -n 19 stress-ng --cpu N` beside every run (a host others keep busy).

A cluster is made (initdb as the postgres user when run as root) on tmpfs (/dev/shm: the
client's cost shows) and in --dir on the real disk (the flush decides), loaded at --scale by
volbench, then for each client count C: pgbench -n -c C -j J -T S, with J = min(C, cores)
(pgbench's best -j here: one thread per core), and volbench db --postgres-url ... -c C
--time S run in turn (pgbench first on even reps, volbench first on odd ones), --reps times
each. Client CPU is the child process's user+system time from wait4().

Usage (root):  python3 bench/db_vs_pgbench.py [--dir /var/tmp] [--clients 1,4,10,32] [--scale 10]
               [--seconds 5] [--reps 3] [--busy 2] [--jobs N]
"""
import argparse, glob, json, os, shutil, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VB = os.path.join(ROOT, "target", "release", "volbench")
BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
USER = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")
SCALE = 10


def as_pg(cmd):
    return (["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []) + cmd


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    out, err = p.stdout, p.stderr
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return out


def timed(cmd):
    """stdout and the child's CPU seconds."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return out.decode(), ru.ru_utime + ru.ru_stime


class Cluster:
    def __init__(self, parent):
        self.root = tempfile.mkdtemp(dir=parent, prefix="vbpg-")
        self.sock = tempfile.mkdtemp(prefix="vbpgs-")
        for d in (self.root, self.sock):
            os.chmod(d, 0o755)
            if os.geteuid() == 0:
                shutil.chown(d, "postgres")
        data = os.path.join(self.root, "data")
        run(as_pg([f"{BIN}/initdb", "-A", "trust", "-N", "-D", data]))
        run(as_pg([f"{BIN}/pg_ctl", "start", "-w", "-D", data, "-l", os.path.join(self.root, "log"),
                   "-o", f"-p 5433 -k {self.sock} -c listen_addresses=''"]))
        self.data = data
        self.url = f"host={self.sock} port=5433 user={USER} dbname=postgres"

    def close(self):
        subprocess.run(as_pg([f"{BIN}/pg_ctl", "stop", "-m", "immediate", "-D", self.data]),
                       capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.sock, ignore_errors=True)


def pgbench(c, clients, secs, jobs):
    out, cpu = timed(["pgbench", "-h", c.sock, "-p", "5433", "-U", USER, "-n", "-c", str(clients),
                      "-j", str(jobs), "-T", str(secs), "postgres"])
    tps = float(next(l for l in out.splitlines() if l.startswith("tps = ")).split()[2])
    n = int(next(l for l in out.splitlines() if l.startswith("number of transactions actually")).split(":")[1].split("/")[0])
    return tps, cpu / n * 1e6


def volbench(c, clients, secs, jobs=None):
    j = ["--jobs", str(jobs)] if jobs else []
    out, cpu = timed([VB, "db", "--postgres-url", c.url, "--clients", str(clients), *j,
                      "--scale", str(SCALE), "--time", f"{secs}s", "--no-store", "-q",
                      "--no-probe", "--output-format", "json"])
    j = json.loads(out)
    return j["tps"], cpu / j["transactions"] * 1e6


def compare(label, parent, a):
    c = Cluster(parent)
    try:
        volbench(c, 1, 1)  # creates and loads pgbench's tables at --scale
        for clients in a.clients:
            best = min(clients, os.cpu_count() or 1)
            p1, pj, v = [], [], []
            # ABBA order: every run leaves the tables a little more bloated (dead tuples, a
            # longer history), so whichever tool always ran second would be penalised.
            for i in range(a.reps):
                runs = [lambda: p1.append(pgbench(c, clients, a.seconds, 1)),
                        lambda: pj.append(pgbench(c, clients, a.seconds, best)),
                        lambda: v.append(volbench(c, clients, a.seconds, a.jobs))]
                for r in (runs if i % 2 == 0 else runs[::-1]):
                    r()
            m = lambda xs, i: statistics.median(x[i] for x in xs)
            top = max(m(p1, 0), m(pj, 0))
            print(f"| {label} | {clients} | {m(p1, 0):,.0f} | {best} | {m(pj, 0):,.0f} | "
                  f"{m(v, 0):,.0f} | {m(v, 0) / top:.2f} | {m(p1, 1):.0f} / {m(pj, 1):.0f} µs | "
                  f"{m(v, 1):.0f} µs |", flush=True)
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--clients", default="1,4,10,32")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--busy", type=int, default=0,
                    help="nice -n 19 stress-ng --cpu N beside every run")
    ap.add_argument("--jobs", type=int, default=None, help="volbench db --jobs (default: its own)")
    a = ap.parse_args()
    a.clients = [int(x) for x in a.clients.split(",")]
    global SCALE
    SCALE = a.scale
    busy = None
    if a.busy:
        busy = subprocess.Popen(["nice", "-n", "19", "stress-ng", "--cpu", str(a.busy)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        print("| cluster on | clients | pgbench -j1 tps | best -j | pgbench tps | volbench tps "
              "| ratio to the better | pgbench CPU/txn (-j1 / best) | volbench CPU/txn |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        compare("tmpfs (/dev/shm)", "/dev/shm", a)
        compare(f"disk ({a.dir})", a.dir, a)
    finally:
        if busy:
            busy.terminate()
            busy.wait()


if __name__ == "__main__":
    main()
