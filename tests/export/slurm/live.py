#!/usr/bin/env python3
"""The Slurm export on a real Slurm 22.05 stack (Debian packages).

usage: live.py GPUPLAN CLUSTER.yaml

Starts, in a temporary directory and on loopback only: munged, a MariaDB
server (its own datadir, a unix socket and a loopback port), slurmdbd,
slurmctld and slurmd (one node, this host, with 8 fake GPU device files).
It loads the exported slurm.conf, gres.conf and topology.conf merged with
the site lines below, runs the exported accounts.sh twice (the second run
must change nothing), then submits jobs and checks, with bounded polling,
what the plan assumed (docs/formats/export-slurm.md, "Live test"):

  1. the spec's team names come back from sacctmgr unchanged;
  2. a job beyond a team's quota stays PENDING on its QOS/association
     limit while the node has room;
  3. several 2-GPU jobs of one team run at once on the 8-GPU node
     (DefCpuPerGPU/DefMemPerGPU; without them each job takes the node);
  4. a job of a higher-priority team preempts a lower-priority job, which
     is requeued;
  5. in a cohort, jobs a team runs in its borrowing QOS are requeued when
     the lending team needs its quota back (reclaim), while the borrower's
     jobs within its own quota keep running.

Every process it starts runs in its own session and is stopped at the end
by process group id, also on failure; every wait is bounded.  A missing
tool is a failure (scripts/deps.sh installs them).  GP_SLURM_KEEP=1 keeps
the temporary directory for inspection.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOOLS = ["munged", "mariadb-install-db", "mariadbd", "mariadb", "slurmdbd",
         "slurmctld", "slurmd", "sacctmgr", "sbatch", "squeue", "scontrol",
         "scancel", "sinfo"]
SBIN = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
DEADLINE_S = 240
TEAMS = ["batch", "tiny_q-2", "urgent", "lender", "borrower"]


class Fail(Exception):
    pass


def tool(name):
    path = shutil.which(name, path=os.pathsep.join(
        [os.environ.get("PATH", "")] + SBIN))
    if not path:
        raise Fail(f"{name} not found (install with scripts/deps.sh)")
    return path


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, fn, timeout, step=0.25):
    """Poll fn() until it returns a true value, at most 'timeout' s."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = fn()
        if last:
            return last
        time.sleep(step)
    raise Fail(f"timed out after {timeout} s waiting for {what}")


class Stack:
    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = []  # (name, Popen), in start order
        self.env = dict(os.environ)
        self.env["SLURM_CONF"] = os.path.join(tmp, "etc", "slurm.conf")
        self.env["PATH"] = os.pathsep.join([self.env.get("PATH", "")] + SBIN)

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def start(self, name, argv):
        log = open(self.path("log", name + ".out"), "wb")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=self.env,
                             start_new_session=True, cwd=self.tmp)
        log.close()
        self.procs.append((name, p))
        return p

    def alive(self, name):
        for n, p in self.procs:
            if n == name and p.poll() is None:
                return True
        return False

    def check_alive(self, name):
        if not self.alive(name):
            raise Fail(f"{name} exited; its log:\n" + self.tail(name))

    def tail(self, name, n=30):
        out = []
        for f in (name + ".out", name + ".log"):
            try:
                with open(self.path("log", f), errors="replace") as fh:
                    out += fh.read().splitlines()[-n:]
            except OSError:
                pass
        return "\n".join(out)

    def run(self, argv, timeout=30, check=True, input=None):
        r = subprocess.run(argv, env=self.env, capture_output=True, text=True,
                           timeout=timeout, cwd=self.tmp, input=input)
        if check and r.returncode != 0:
            raise Fail(f"{' '.join(argv)} exited {r.returncode}:\n"
                       f"{r.stdout}{r.stderr}")
        return r

    def stop_all(self):
        """Stop every process started here, newest first, by its process
        group (each runs in its own session): SIGTERM, then SIGKILL."""
        for name, p in reversed(self.procs):
            for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=wait)
                except subprocess.TimeoutExpired:
                    continue
                # the leader is gone; the rest of its group goes too
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                break


def start_munge(st):
    key = st.path("etc", "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    os.makedirs(st.path("munge"), mode=0o700)
    st.start("munged", [tool("munged"), "-F", "--force",
                        "--key-file", key,
                        "--socket", st.path("munge", "munge.sock"),
                        "--pid-file", st.path("munge", "munged.pid"),
                        "--seed-file", st.path("munge", "munge.seed"),
                        "--log-file", st.path("log", "munged.log")])
    wait_for("munged's socket",
             lambda: st.check_alive("munged")
             or os.path.exists(st.path("munge", "munge.sock")), 15)


def start_mariadb(st, port):
    data = st.path("db")
    r = st.run([tool("mariadb-install-db"), "--no-defaults",
                "--datadir=" + data, "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db", "--skip-name-resolve"], timeout=120)
    sock = st.path("db.sock")
    st.start("mariadbd", [tool("mariadbd"), "--no-defaults",
                          "--datadir=" + data, "--user=root",
                          "--socket=" + sock, "--port=%d" % port,
                          "--bind-address=127.0.0.1", "--skip-name-resolve",
                          "--pid-file=" + st.path("db.pid"),
                          "--log-error=" + st.path("log", "mariadbd.log"),
                          "--innodb-buffer-pool-size=64M",
                          "--innodb-flush-log-at-trx-commit=0",
                          "--innodb-doublewrite=0", "--skip-log-bin"])
    client = [tool("mariadb"), "--no-defaults", "-S", sock, "-u", "root"]

    def up():
        st.check_alive("mariadbd")
        return st.run(client + ["-e", "SELECT 1"], check=False).returncode == 0
    wait_for("mariadbd", up, 60, 0.5)
    st.run(client + ["-e",
                     "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'gp';"
                     "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"])
    del r


SITE = """\
# site lines of the live test (loopback, temporary directories)
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={tmp}/munge/munge.sock
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool/%n
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/log/slurmctld.log
SlurmdLogFile={tmp}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups in the sandbox: Linux process tracking, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
AccountingStorageHost=127.0.0.1
AccountingStoragePort={dbd_port}
# the munge socket of connections to slurmdbd (AuthInfo is not used there)
AccountingStoragePass={tmp}/munge/munge.sock
# the node is this 2-core host: take the configured CPUs and memory as
# given instead of draining it for having less
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerParameters=sched_interval=2,bf_interval=1
PriorityCalcPeriod=1
MinJobAge=300
"""

DBD = """\
AuthType=auth/munge
AuthInfo=socket={tmp}/munge/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={dbd_port}
SlurmUser=root
LogFile={tmp}/log/slurmdbd.log
PidFile={tmp}/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={db_port}
StorageUser=slurm
StoragePass=gp
StorageLoc=slurm_acct_db
"""


def write_config(st, export_dir, ports):
    """The exported fragment plus the site lines; the node gets the
    loopback address and gres.conf fake device files (/dev/tty[0-7], the
    trick of Slurm's own test suite)."""
    fmt = dict(ports, tmp=st.tmp, host=socket.gethostname())
    etc = st.path("etc")
    with open(os.path.join(export_dir, "slurm.conf")) as f:
        conf = f.read()
    nodes = re.findall(r"^NodeName=(\S+) ", conf, re.M)
    if len(nodes) != 1:
        raise Fail(f"expected one NodeName line, got {nodes}")
    conf = re.sub(r"^(NodeName=\S+ .*)$", r"\1 NodeAddr=127.0.0.1", conf,
                  flags=re.M)
    with open(os.path.join(etc, "slurm.conf"), "w") as f:
        f.write(SITE.format(**fmt) + conf)
    with open(os.path.join(export_dir, "gres.conf")) as f:
        gres = f.read()
    gres, n = re.subn(r"File=/dev/nvidia\[0-7\]", "File=/dev/tty[0-7]", gres)
    if n != 1:
        raise Fail("gres.conf: expected File=/dev/nvidia[0-7]:\n" + gres)
    with open(os.path.join(etc, "gres.conf"), "w") as f:
        f.write(gres)
    shutil.copy(os.path.join(export_dir, "topology.conf"), etc)
    dbd = os.path.join(etc, "slurmdbd.conf")
    with open(dbd, "w") as f:
        f.write(DBD.format(**fmt))
    os.chmod(dbd, 0o600)
    return nodes[0]


def sacctmgr_state(st):
    """Everything accounts.sh sets, as sacctmgr shows it."""
    out = []
    for q in (["show", "qos", "format=name,priority,grptres,preempt,"
               "preemptmode"],
              ["show", "assoc", "format=cluster,account,user,fairshare,"
               "grptres,qos,defaultqos"],
              ["show", "cluster", "format=cluster"]):
        out.append(st.run(["sacctmgr", "-n", "-P"] + q).stdout)
    return "".join(out)


def jobs(st):
    """{jobid: (state, reason, restarts)} of the queue."""
    r = st.run(["scontrol", "-o", "show", "job"], check=False)
    res = {}
    for line in r.stdout.splitlines():
        f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "JobId" in f:
            res[f["JobId"]] = (f.get("JobState"), f.get("Reason"),
                               int(f.get("Restarts", "0")))
    return res


def submit(st, account, gpus=2, qos=None):
    r = st.run(["sbatch", "--parsable", "-A", account, "-p", "gpn"]
               + (["--qos", qos] if qos else []) + [
                "--gres=gpu:%d" % gpus, "-n", "1", "-t", "10",
                "-o", "/dev/null", "--wrap", "sleep 600"])
    return r.stdout.strip().split(";")[0]


def scenario(st, cluster_spec, gpuplan):
    for d in ("etc", "log", "state", "spool", "export"):
        os.makedirs(st.path(d), exist_ok=True)
    ports = {k: free_port() for k in ("db_port", "dbd_port", "ctld_port",
                                      "slurmd_port")}
    st.run([gpuplan, "export", "slurm", "--cluster", cluster_spec,
            "--out", st.path("export")])
    node = write_config(st, st.path("export"), ports)
    start_munge(st)
    start_mariadb(st, ports["db_port"])
    st.start("slurmdbd", [tool("slurmdbd"), "-D"])

    last = []

    def dbd_up():
        st.check_alive("slurmdbd")
        r = st.run(["sacctmgr", "-n", "show", "cluster"], check=False)
        last[:] = [r.stdout + r.stderr]
        return r.returncode == 0
    try:
        wait_for("slurmdbd", dbd_up, 60, 0.5)
    except Fail as e:
        raise Fail(f"{e}; sacctmgr said: {last}") from None
    st.start("slurmctld", [tool("slurmctld"), "-D", "-i"])
    st.start("slurmd", [tool("slurmd"), "-D", "-N", node])

    def node_idle():
        st.check_alive("slurmctld")
        st.check_alive("slurmd")
        r = st.run(["sinfo", "-h", "-N", "-o", "%N %T %G"], check=False)
        return "idle" in r.stdout and r.stdout
    print("node:", wait_for("the node to be idle", node_idle, 60).strip())

    # accounts.sh (after slurmctld registered the gres/gpu TRES), twice:
    # the second run exits 0 and changes nothing.
    accounts = st.path("export", "accounts.sh")
    users = ["root:" + t for t in TEAMS]
    st.run(["sh", accounts] + users, timeout=60)
    before = sacctmgr_state(st)
    st.run(["sh", accounts] + users, timeout=60)
    after = sacctmgr_state(st)
    if before != after:
        raise Fail("accounts.sh rerun changed the database:\n--- before\n"
                   f"{before}--- after\n{after}")
    print("accounts.sh: second run is a no-op")

    # 1. names round-trip through sacctmgr unchanged.
    qos = st.run(["sacctmgr", "-n", "-P", "show", "qos",
                  "format=name"]).stdout.split()
    accts = st.run(["sacctmgr", "-n", "-P", "show", "account",
                    "format=account"]).stdout.split()
    for name in TEAMS:
        if name not in qos or name not in accts:
            raise Fail(f"team '{name}' not found as written: QOS {qos}, "
                       f"accounts {accts}")
    clusters = st.run(["sacctmgr", "-n", "-P", "show", "cluster",
                       "format=cluster"]).stdout.split()
    if "gplive" not in clusters:
        raise Fail(f"cluster 'gplive' not in {clusters}")
    print("names: round-trip unchanged")

    # 2. tiny_q-2 (quota 2): the second 2-GPU job waits on the limit.
    t1 = submit(st, "tiny_q-2")
    wait_for("the first tiny_q-2 job to run",
             lambda: jobs(st).get(t1, ("",))[0] == "RUNNING", 30)
    t2 = submit(st, "tiny_q-2")

    def limited():
        s = jobs(st).get(t2)
        return s and s[0] == "PENDING" and re.match(
            r"(QOS|Assoc)Grp(GRES|TRES)", s[1] or "") and s
    print("quota:", t2, wait_for("a QOS/association limit reason",
                                 limited, 30))

    # 3. batch: three 2-GPU jobs at once beside tiny_q-2's (8 of 8 GPUs).
    bs = [submit(st, "batch") for _ in range(3)]
    wait_for("three batch jobs running at once",
             lambda: all(jobs(st).get(j, ("",))[0] == "RUNNING" for j in bs),
             30)
    print("sharing: 3 batch jobs and 1 tiny_q-2 job run on one node")
    if jobs(st).get(t2, ("",))[0] != "PENDING":
        raise Fail("the job beyond tiny_q-2's quota started")

    # 4. urgent (priority 10) preempts a lower-priority job (REQUEUE).
    u = submit(st, "urgent")

    def preempted():
        js = jobs(st)
        if js.get(u, ("",))[0] != "RUNNING":
            return None
        return [j for j in bs + [t1] if js.get(j, ("", "", 0))[2] > 0]
    victims = wait_for("urgent to preempt a job", preempted, 60)
    print("preemption: urgent job", u, "running; requeued:", victims)
    cancel_all(st)

    # 5. reclaim in the cohort: borrower (quota 2, may borrow 4) fills the
    # node beside lender's first job, then lender takes its quota back.
    own = submit(st, "borrower")
    lent = [submit(st, "borrower", qos="borrower-borrow") for _ in range(2)]
    l1 = submit(st, "lender")
    wait_for("borrower's 3 jobs and lender's first running",
             lambda: all(jobs(st).get(j, ("",))[0] == "RUNNING"
                         for j in [own, l1] + lent), 30)
    l2 = submit(st, "lender")

    def reclaimed():
        js = jobs(st)
        if js.get(l2, ("",))[0] != "RUNNING":
            return None
        return [j for j in lent if js.get(j, ("", "", 0))[2] > 0]
    victims = wait_for("lender to reclaim its quota", reclaimed, 60)
    if jobs(st).get(own, ("",))[0] != "RUNNING":
        raise Fail("reclaim requeued the borrower's job within its quota")
    print("reclaim: lender job", l2, "running; requeued borrowing job(s):",
          victims)


def cancel_all(st):
    st.run(["scancel", "--full", "-u", "root"], check=False)
    wait_for("jobs to end", lambda: not st.run(
        ["squeue", "-h"], check=False).stdout.strip(), 20)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    gpuplan = os.path.abspath(sys.argv[1])
    spec = os.path.abspath(sys.argv[2])
    t0 = time.monotonic()

    def stop(signum, frame):
        raise Fail(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                signal.SIGALRM):
        signal.signal(sig, stop)
    # A deadline of its own, below ctest's 300 s, so that the stack is
    # always stopped here (ctest's kill would not reach the daemons' own
    # sessions).
    signal.alarm(DEADLINE_S)
    tmp = tempfile.mkdtemp(prefix="gp-slurm-")
    st = Stack(tmp)
    rc = 1
    try:
        if os.geteuid() != 0:
            raise Fail("needs root: the daemons run with SlurmUser=root and "
                       "jobs are submitted as root")
        for t in TOOLS:
            tool(t)
        scenario(st, spec, gpuplan)
        rc = 0
    except (Fail, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        for name in ("slurmctld", "slurmd", "slurmdbd"):
            print(f"--- {name} log (tail):\n{st.tail(name, 15)}",
                  file=sys.stderr)
    finally:
        signal.alarm(0)
        hold = os.environ.get("GP_SLURM_HOLD")
        if hold and rc:  # debugging: leave the stack up for a while
            print(f"holding {tmp} for {hold} s", file=sys.stderr, flush=True)
            time.sleep(min(float(hold), 600))
        if any(n == "slurmctld" for n, _ in st.procs) \
                and st.alive("slurmctld"):
            try:
                cancel_all(st)
            except Fail as e:
                print(f"warning: {e}", file=sys.stderr)
        st.stop_all()
        if os.environ.get("GP_SLURM_KEEP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'ok' if rc == 0 else 'FAILED'} in {time.monotonic() - t0:.0f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
