#!/usr/bin/env python3
"""A team's history at scale (issue 64): 10,000, 100,000 and 1,000,000 results in a SQLite
store and in a real PostgreSQL, and what `history` and `serve` cost at each size.

  python3 bench/history_scale.py                          # both backends, 10k / 100k / 1M
  python3 bench/history_scale.py --sizes 10000,100000 --backends sqlite

Each store holds copies of one real result (a 4 KiB random-read run of 2 s, made first), each
with its own uid and label, spread over a year and eight hosts, kinds and suites mixed as a
team's nightly runs, CI checks and sweeps would be. The copies are made by SQL beside
volbench's own schema (volbench makes and migrates the schema; inserting a million through
the CLI would take hours and measure nothing this asks). PostgreSQL's table is then vacuumed,
as its autovacuum does on its own within a minute of a large insert (PostgreSQL 13 and later
vacuum after inserts), so a count reads the index and the visibility map, as in a store that
grew over a year.

Measured at each size, each figure the median of 3 (wall time, and the peak RSS from wait4):
  history            the first page (newest 50) and its count
  history --label    one row found by its label
  history deep       a page at the middle of the history (--before N/2)
  history filtered   --kind sweep --host h2 (two indexed filters)
  serve /            the front page (bytes, time), serve's peak RSS after all its requests
  serve filtered     /?kind=sweep&host=h2;  serve deep /?before=N/2
and the bytes on disk per result.
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
VOLBENCH = os.path.join(HERE, "..", "target", "release", "volbench")
HOSTS = 8
YEAR_S = 365 * 86400


def pg_bin():
    import glob
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not found:
        sys.exit("needs PostgreSQL's server (apt-get install postgresql)")
    return found[-1]


def timed(cmd, env):
    """Runs cmd: (seconds, stdout bytes, stderr text)."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, err = p.communicate()
    secs = time.monotonic() - t
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err.decode().strip()}")
    return secs, out, err.decode()


def rss_of(cmd, env):
    """Peak RSS (MiB) of one run of cmd, as GNU time reads it. (wait4's figure from this
    process would count Python's own memory: a child keeps its parent's high-water mark from
    before its exec.)"""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env, text=True, check=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def median_run(cmd, env, n=3):
    times = []
    for _ in range(n):
        secs, out, err = timed(cmd, env)
        times.append(secs)
    return statistics.median(times), rss_of(cmd, env), out, err


def seed(work):
    """One real result in a SQLite store: the report every copy holds."""
    store = os.path.join(work, "seed.db")
    f = os.path.join(work, "seed.file")
    env = dict(os.environ, VOLBENCH_STORE=store)
    subprocess.run([VOLBENCH, "run", f"--filename={f}", "--rw=randread", "--bs=4k",
                    "--size=64m", "--runtime=2s", "-q", "--label=seed"],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.remove(f)
    return store


# The columns every copy takes from the seed, and the ones each copy makes its own.
KINDS = "CASE WHEN n % 10 = 0 THEN 'sweep' WHEN n % 10 = 1 THEN 'suite' ELSE 'run' END"
SUITES = "CASE WHEN n % 10 = 1 THEN 'quick' ELSE NULL END"


def fill_sqlite(path, seed_store, have, want):
    """Grows the SQLite store at `path` from `have` to `want` results."""
    import sqlite3
    if have == 0:
        # volbench makes the store and its schema (the current version).
        env = dict(os.environ, VOLBENCH_STORE=path)
        subprocess.run([VOLBENCH, "history"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = sqlite3.connect(path)
    c.execute("ATTACH ? AS seed", (seed_store,))
    c.execute(f"""
        WITH RECURSIVE k(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM k WHERE n < ?)
        INSERT INTO entries (id, kind, started_at, label, suite, target, hostname, status, iops,
                             bw_bytes, points, what, uid, machine, kernel)
        SELECT n, {KINDS}, strftime('%Y-%m-%dT%H:%M:%SZ', 1767225600 + n * {YEAR_S} / {want}, 'unixepoch'),
               'r' || n, {SUITES}, s.target, 'h' || (n % {HOSTS}), s.status, s.iops, s.bw_bytes,
               s.points, s.what, lower(hex(randomblob(16))), s.machine, s.kernel
        FROM k, (SELECT * FROM seed.entries LIMIT 1) s""", (have + 1, want))
    c.execute("""
        WITH RECURSIVE k(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM k WHERE n < ?)
        INSERT INTO reports (entry, report) SELECT n, r.report FROM k, (SELECT report FROM seed.reports LIMIT 1) r""",
              (have + 1, want))
    c.commit()
    c.close()


class Postgres:
    """A throwaway PostgreSQL cluster on a socket in `work` (initdb refuses root: the
    postgres user runs it), stopped and removed by stop()."""

    def __init__(self, work):
        self.dir = os.path.join(work, "pg")
        os.makedirs(self.dir)
        shutil.chown(self.dir, "postgres")
        self.data = os.path.join(self.dir, "data")
        b = pg_bin()
        self.port = free_port()
        as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_pg + [f"{b}/initdb", "-D", self.data, "-A", "trust"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(as_pg + [f"{b}/pg_ctl", "-w", "-D", self.data, "-l",
                                os.path.join(self.dir, "log"), "-o",
                                f"-p {self.port} -k {self.dir} -c listen_addresses=''", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.url = f"host={self.dir} port={self.port} user=postgres dbname=postgres"
        self.bin = b

    def psql(self, sql):
        subprocess.run([f"{self.bin}/psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.dir,
                        "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-c", sql],
                       check=True, stdout=subprocess.DEVNULL)

    def size(self):
        out = subprocess.run([f"{self.bin}/psql", "-At", "-h", self.dir, "-p", str(self.port),
                              "-U", "postgres", "-d", "postgres", "-c",
                              "SELECT pg_total_relation_size('volbench_entries') + pg_total_relation_size('volbench_tags')"],
                             check=True, capture_output=True, text=True)
        return int(out.stdout.strip())

    def stop(self):
        subprocess.run(["runuser", "-u", "postgres", "--", f"{self.bin}/pg_ctl", "-w", "-D",
                        self.data, "-m", "fast", "stop"], stdout=subprocess.DEVNULL)


def fill_pg(pg, seed_store, have, want):
    if have == 0:
        env = dict(os.environ, VOLBENCH_STORE=pg.url)
        subprocess.run([VOLBENCH, "store", "copy", "--from", seed_store, "--to", pg.url], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pg.psql("DELETE FROM volbench_tags")
    pg.psql(f"""
        INSERT INTO volbench_entries (kind, started_at, label, suite, target, hostname, status,
            iops, bw_bytes, points, report, what, uid, machine, kernel)
        SELECT {KINDS}, to_char(to_timestamp(1767225600 + n::bigint * {YEAR_S} / {want}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
               'r' || n, {SUITES}, s.target, 'h' || (n % {HOSTS}), s.status, s.iops, s.bw_bytes,
               s.points, s.report, s.what, md5(random()::text || n), s.machine, s.kernel
        FROM generate_series({max(have, 1) + 1}, {want}) n,
             (SELECT * FROM volbench_entries ORDER BY id LIMIT 1) s""")
    pg.psql("VACUUM ANALYZE volbench_entries")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_figures(store, n):
    """Starts serve on `store`, asks its pages, and stops it: {name: (seconds, bytes)}, RSS."""
    port = free_port()
    env = dict(os.environ, VOLBENCH_STORE=store)
    p = subprocess.Popen([VOLBENCH, "serve", "--store", store, "--listen", f"127.0.0.1:{port}"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        out = {}
        for name, path in [("serve /", "/"), ("serve filtered", "/?kind=sweep&host=h2"),
                           ("serve deep", f"/?before={n // 2}"), ("serve label", f"/?label=r{n // 3}")]:
            times = []
            for _ in range(3):
                t = time.monotonic()
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60).read()
                times.append(time.monotonic() - t)
            out[name] = (statistics.median(times), len(body))
        with open(f"/proc/{p.pid}/status") as f:
            hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
        return out, hwm / 1024
    finally:
        p.terminate()
        p.wait()


def measure(store, n, size_bytes):
    env = dict(os.environ, VOLBENCH_STORE=store)
    base = [VOLBENCH, "history", "--store", store]
    rows = []
    for name, extra in [("history", []), ("history --label", [f"--label=r{n // 3}"]),
                        ("history deep", [f"--before={n // 2}"]),
                        ("history filtered", ["--kind=sweep", "--host=h2"])]:
        secs, rss, out, err = median_run(base + extra, env)
        lines = out.decode().count("\n") - 1
        rows.append((name, secs, rss, f"{lines} rows"))
    pages, hwm = serve_figures(store, n)
    for name, (secs, nbytes) in pages.items():
        rows.append((name, secs, hwm, f"{nbytes / 1024:.0f} KiB"))
    print(f"  on disk: {size_bytes / n / 1024:.1f} KiB per result ({size_bytes / 2**30:.2f} GiB)")
    for name, secs, rss, what in rows:
        print(f"  {name:<18} {secs * 1000:8.0f} ms  {rss:6.0f} MiB  {what}")
    sys.stdout.flush()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--backends", default="sqlite,postgres")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    # Private to root but reachable by the postgres user, who runs the cluster inside.
    work = tempfile.mkdtemp(prefix="vb-scale-", dir="/var/tmp")
    os.chmod(work, 0o755)  # the postgres user reaches its cluster directory inside
    try:
        seed_store = seed(work)
        if "sqlite" in a.backends:
            path = os.path.join(work, "team.db")
            have = 0
            for n in sizes:
                fill_sqlite(path, seed_store, have, n)
                have = n
                print(f"SQLite, {n:,} results", flush=True)
                size = os.path.getsize(path) + (os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else 0)
                measure(path, n, size)
            os.remove(path)
        if "postgres" in a.backends:
            pg = Postgres(work)
            try:
                have = 0
                for n in sizes:
                    fill_pg(pg, seed_store, have, n)
                    have = n
                    print(f"PostgreSQL, {n:,} results", flush=True)
                    measure(pg.url, n, pg.size())
            finally:
                pg.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
