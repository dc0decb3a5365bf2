"""The Spark route on a real standalone cluster: a master and two workers on loopback, started
from pyspark's own launcher, jobs sent with ``spark-submit``, the package shipped to the
executors as a packed virtual environment (``--archives``), as docs/scale-out.md tells users.

On ``local[N]`` the driver and the executors share one JVM and one Python; here they do not, so
these tests are what shows the shipping recipe works. The recipe's shell blocks in
docs/scale-out.md (the ones marked ``# run on a standalone cluster by ...``) are run verbatim,
and their outputs compared with the CLI's. Then the faults a cluster has: an executor killed
(SIGKILL, by PID) mid-job, and speculative duplicates of a slow task; each job must still give the
CLI's output byte for byte, every record answered once, in order.

Every process the session starts is stopped by its PID at the end (executors and their Python
workers first, then the workers and the master), and every wait is bounded, so a hang fails the
test instead of eating the CI budget.
"""

import csv
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import DATA, REPO, puzzles_of
from test_docs import CLUSTER as RECIPE_MARK
from test_docs import blocks, shell_script
from test_spark import check_line_output, mixed_lines, part_files

if os.environ.get("CI"):
    import pyspark  # CI installs it: a missing pyspark must fail, not skip
else:
    pyspark = pytest.importorskip("pyspark")

SPARK_HOME = os.path.dirname(pyspark.__file__)
STARTUP_TIMEOUT = 120  # seconds for the master and both workers to be up
JOB_TIMEOUT = 240  # seconds for any one spark-submit
EXECUTOR_PYTHON = "./environment/bin/python"  # as the recipe says: the archive unpacked as `environment`


def need(condition, message):
    """Skip outside CI, fail in CI: a missing prerequisite must not pass silently there."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children():
    """parent PID -> child PIDs, from /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        out.setdefault(ppid, []).append(int(entry))
    return out


def descendants(pid):
    tree, out, todo = children(), [], [pid]
    while todo:
        for c in tree.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid):
    """True if `pid` is a running process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def kill_all(pids, timeout=20):
    """SIGKILL each of `pids` that still runs, and wait (bounded) until they are gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


class Cluster:
    """A standalone master and two one-core workers, each a JVM started with spark-class."""

    def __init__(self, root):
        self.root = root
        self.port, self.ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = dict(
            os.environ,
            SPARK_HOME=SPARK_HOME,
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOG_DIR=str(root / "logs"),
            # No REST submission server (it would take the fixed port 6066).
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
        )
        self.procs = {}  # name -> Popen
        self.logs = {}  # name -> log path

    def start(self, name, cls, *args, host="127.0.0.1"):
        log = self.root / f"{name}.log"
        self.logs[name] = log
        with open(log, "wb") as out:
            self.procs[name] = subprocess.Popen(
                [os.path.join(SPARK_HOME, "bin", "spark-class"), cls, *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(self.env, SPARK_LOCAL_IP=host),
                start_new_session=True,
            )

    def status(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=5) as r:
            return json.load(r)

    def master_ports(self):
        """The master's RPC URL and web UI port as its log reports them, or None before both are
        bound. Spark moves a service to the next port when the one asked for is taken (another
        process may grab a port between `free_port` and the master's bind), so the ports asked
        for are only a first choice."""
        log = self.logs["master"].read_text(errors="replace")
        url = re.search(r"Starting Spark master at (spark://\S+)", log)
        ui = re.search(r"Successfully started service '?MasterUI'? on port (\d+)", log)
        return (url.group(1), int(ui.group(1))) if url and ui else None

    def check_running(self):
        for name, p in self.procs.items():
            if p.poll() is not None:
                raise AssertionError(f"{name} exited with {p.returncode}:\n{self.logs[name].read_text()[-3000:]}")

    def up(self):
        self.start(
            "master",
            "org.apache.spark.deploy.master.Master",
            *["--host", "127.0.0.1", "--port", str(self.port), "--webui-port", str(self.ui)],
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while (ports := self.master_ports()) is None:
            self.check_running()
            if time.monotonic() > deadline:
                raise AssertionError(f"the master was not up in {STARTUP_TIMEOUT} s:\n{self.logs['master'].read_text()[-3000:]}")
            time.sleep(0.5)
        self.url, self.ui = ports
        # Worker k on loopback address 127.0.0.k: Spark runs a speculative copy of a task only on
        # another host than the original's, so the two workers must look like two hosts.
        for k in (1, 2):
            work = self.root / f"worker{k}"
            work.mkdir()
            self.start(
                f"worker{k}",
                "org.apache.spark.deploy.worker.Worker",
                *["--host", f"127.0.0.{k}", "--webui-port", "0", "--cores", "1", "--memory", "1g"],
                *["--work-dir", str(work), self.url],
                host=f"127.0.0.{k}",
            )
        while True:
            self.check_running()
            try:
                if self.status().get("aliveworkers") == 2:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the cluster was not up in {STARTUP_TIMEOUT} s:\n{self.logs['master'].read_text()[-3000:]}")
            time.sleep(0.5)

    def executors(self, worker):
        """PIDs of the executor JVMs a worker runs (its children, by their main class)."""
        return [p for p in descendants(self.procs[worker].pid) if "CoarseGrainedExecutorBackend" in cmdline(p)]

    def down(self):
        """Stops every process the cluster started, by PID: the workers' descendants (executors
        and their Python workers) first, then the workers and the master. Returns the PIDs
        still alive (none, if all went well)."""
        pids = []
        for p in self.procs.values():
            pids += descendants(p.pid)
        left = kill_all(pids)
        for p in self.procs.values():
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.procs.values():
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=15)
        # An executor launched between the listing and the workers' end would be orphaned: any
        # process still working in the cluster's directories is one of ours, stopped by its PID.
        left += kill_all(self.stray())
        return left + [p.pid for p in self.procs.values() if alive(p.pid)]

    def stray(self):
        """PIDs of running processes whose working directory is under the cluster's root."""
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                try:
                    cwd = os.readlink(f"/proc/{entry}/cwd")
                except OSError:
                    continue
                if cwd.startswith(str(self.root) + os.sep) and alive(int(entry)):
                    out.append(int(entry))
        return out


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    need(shutil.which("java") is not None, "java is not installed (the cluster needs a JRE)")
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        c.up()
        yield c
    finally:
        started = [p.pid for p in c.procs.values()]
        left = c.down()
        assert not left, f"processes left after teardown: {[(p, cmdline(p)) for p in left]}"
        assert not any(alive(p) for p in started)
        assert not c.stray(), f"processes left in the cluster's directories: {c.stray()}"


def recipe_blocks():
    """The cluster recipe's shell blocks of docs/scale-out.md, in order."""
    doc = REPO / "docs" / "scale-out.md"
    found = [source for lang, _, source in blocks(doc) if lang == "sh" and RECIPE_MARK in source]
    assert len(found) >= 3, "docs/scale-out.md lost its cluster recipe blocks"
    return found


def run_block(source, work, master, timeout=JOB_TIMEOUT * 3):
    """Runs a recipe block as the docs' tests run shell blocks (``python`` is this interpreter,
    driver-side ``pip`` lines skipped: this environment already has what they install), with
    ``MASTER`` set and this interpreter's directory first on PATH (so ``spark-submit`` and
    ``python`` are the driver environment's)."""
    env = dict(
        os.environ,
        DOCS_PYTHON=sys.executable,
        MASTER=master,
        SPARK_LOCAL_IP="127.0.0.1",
        PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
    )
    env.pop("PYSPARK_PYTHON", None)
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", shell_script(source)],
        cwd=work,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return run


@pytest.fixture(scope="session")
def recipe(tmp_path_factory):
    """A working directory where the recipe's first block has built and packed the executors'
    environment, from the wheel CI built (``$SUDOKU_BATCH_WHEEL``): the recipe's own ``pip
    wheel`` line would compile the engine a second time."""
    wheel = os.environ.get("SUDOKU_BATCH_WHEEL", "")
    need(os.path.isfile(wheel), f"SUDOKU_BATCH_WHEEL does not name a built wheel ({wheel!r}): pip wheel --no-deps ./python")
    work = tmp_path_factory.mktemp("recipe")
    (work / "data").symlink_to(DATA)
    (work / "wheels").mkdir()
    shutil.copy(wheel, work / "wheels")
    run_block(recipe_blocks()[0], work, "unused")
    assert (work / "executor-env.tar.gz").stat().st_size > 1 << 20
    return work


def write_inputs(work):
    """The files the recipe's jobs read, with bad records among them: ``puzzles.txt`` (line
    format: comments, blank lines, CRLF, bad lines), ``train.csv`` and ``train.parquet`` (a bad
    puzzle every 50 rows; the Parquet one has a null)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (work / "puzzles.txt").write_text(mixed_lines(6000))
    puzzles = puzzles_of("generated_unique25_2000.txt")
    quizzes = ["xyz" if i % 50 == 9 else p for i, p in enumerate(puzzles)]
    with open(work / "train.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "quizzes"])
        w.writerows([i, q] for i, q in enumerate(quizzes))
    quizzes[17] = None
    pq.write_table(pa.table({"id": pa.array(range(len(quizzes)), pa.int64()), "quizzes": quizzes}), work / "train.parquet", row_group_size=250)


def cli_rows(cli, *args):
    """The CLI's CSV output as rows (header first)."""
    out = subprocess.run([cli, *args, "-q"], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr  # 1: some records are bad, as the inputs have
    return list(csv.reader(out.stdout.splitlines()))


def test_the_docs_cluster_recipe_equals_the_cli(cluster, recipe, cli):
    """The recipe's jobs, verbatim from the docs: the module on line, CSV and Parquet input with
    bad records (the job never fails on them; each record keeps its status in place), and a
    user's own job with solve_column. Each output is the CLI's, record by record (byte for
    byte for line output)."""
    import pyarrow.parquet as pq

    write_inputs(recipe)
    for block in recipe_blocks()[1:]:
        run_block(block, recipe, cluster.url)

    # Line input: the part files concatenated are the CLI's output, byte for byte.
    solutions = (recipe / "solutions.txt").read_text()
    check_line_output((recipe / "puzzles.txt").read_text(), solutions)
    assert len(part_files(recipe / "solved")) >= 4
    cli_out = subprocess.run([cli, "solve", "-q", str(recipe / "puzzles.txt")], check=False, capture_output=True, text=True)
    assert solutions == cli_out.stdout

    # CSV input: the header file and the part files are the CLI's CSV, row by row.
    counted = list(csv.reader((recipe / "counted.csv").read_text().splitlines()))
    assert counted == cli_rows(cli, "count", str(recipe / "train.csv"))

    # Parquet input: every column, in order, as the CLI answers the same table.
    table = pq.read_table(recipe / "solved.parquet")
    want = cli_rows(cli, "solve", "--output-format", "csv", str(recipe / "train.parquet"))
    assert table.column_names == want[0] == ["id", "quizzes", "solution", "status"]
    got = [[("" if v is None else str(v)) for v in row.values()] for row in table.to_pylist()]
    assert got == want[1:]
    assert sum(r[3].startswith("invalid") for r in got) == 41  # 40 bad puzzles and a null

    # The user's job: its Parquet output, as the CLI solves train.csv.
    table = pq.read_table(recipe / "train-solved")
    want = cli_rows(cli, "solve", str(recipe / "train.csv"))
    assert table.column_names == want[0]
    assert [[("" if v is None else str(v)) for v in row.values()] for row in table.to_pylist()] == want[1:]


def hard_puzzles():
    """Hard puzzles (the forum's hardest, rated 11+) from $SUDOKU_DATA_DIR: a job on them is
    long enough to be caught mid-way."""
    data = os.environ.get("SUDOKU_DATA_DIR", "")
    path = pathlib.Path(data) / "puzzles5_forum_hardest_1905_11+"
    need(data and path.is_file(), f"the public data sets are not at SUDOKU_DATA_DIR={data!r}")
    return [l[:81] for l in path.read_text().splitlines() if len(l) >= 81 and not l.startswith("#")]


def write_lines(path, puzzles, bad_every=997):
    """Line-format input with a bad line now and then (statuses in place, never a failed job)."""
    with open(path, "w") as f:
        f.writelines("not a puzzle\n" if i % bad_every == 5 else p[:81] + "\n" for i, p in enumerate(puzzles))


def submit(recipe, args, conf=(), timeout=JOB_TIMEOUT, before_wait=None):
    """``spark-submit`` of the module with the recipe's shipping (the packed environment as
    ``--archives``, unpacked as ``environment``); returns (job, its stderr). `before_wait` is
    called with the running job (a Popen) before waiting for it to end."""
    import sudoku_batch.spark

    command = [os.path.join(os.path.dirname(sys.executable), "spark-submit"), "--master", recipe["master"]]
    command += ["--archives", "executor-env.tar.gz#environment"]
    for key, value in conf:
        command += ["--conf", f"{key}={value}"]
    command += [sudoku_batch.spark.__file__, *map(str, args)]
    env = dict(os.environ, PYSPARK_DRIVER_PYTHON=sys.executable, PYSPARK_PYTHON=EXECUTOR_PYTHON, SPARK_LOCAL_IP="127.0.0.1")
    stderr = recipe["work"] / f"submit-{time.monotonic_ns()}.log"
    with open(stderr, "wb") as err:
        job = subprocess.Popen(
            command, cwd=recipe["work"], env=env, stdout=err, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            if before_wait is not None:
                before_wait(job)
            job.wait(timeout=timeout)
        finally:
            if job.poll() is None:  # a hang, or a failed check: stop the job and its driver by PID
                kill_all(descendants(job.pid) + [job.pid])
                job.wait(timeout=15)
    return job, stderr.read_text()


@pytest.fixture
def shipped(cluster, recipe):
    return {"master": cluster.url, "work": recipe}


def events_of(directory):
    """The Spark event log of the one application in `directory`: a list of JSON events."""
    logs = [p for p in pathlib.Path(directory).iterdir() if p.is_file()]
    assert len(logs) == 1, logs
    return [json.loads(line) for line in logs[0].read_text().splitlines() if line.strip()]


def event_log_conf(directory):
    directory.mkdir()
    # One plain JSON file (Spark 4 rolls and compresses event logs by default).
    return [
        ("spark.eventLog.enabled", "true"),
        ("spark.eventLog.dir", directory.as_uri()),
        ("spark.eventLog.rolling.enabled", "false"),
        ("spark.eventLog.compress", "false"),
    ]


def committed(out):
    """Has the job committed any output? (Spark's file commit protocol moves the part files
    into place, and writes _SUCCESS, only when the whole job is done.)"""
    return out.exists() and (bool(part_files(out)) or (out / "_SUCCESS").exists())


def test_an_executor_killed_mid_job_loses_nothing(cluster, shipped, cli, tmp_path):
    """SIGKILL of one worker's executor while it runs a task, before any output is committed:
    Spark re-runs the lost tasks (on worker2's executor or a replacement) and the job's output is still the CLI's,
    byte for byte (every record answered once, in order, bad ones with their status)."""
    src = tmp_path / "hard.txt"
    write_lines(src, hard_puzzles())
    out = tmp_path / "out"
    events = tmp_path / "events"
    killed = {}
    # The applications worker1 ran before this job: an executor of one of them may still be
    # shutting down, and killing it would miss this job.
    earlier = set(os.listdir(cluster.root / "worker1"))

    def kill_mid_job(job):
        deadline = time.monotonic() + JOB_TIMEOUT
        while time.monotonic() < deadline:
            assert job.poll() is None, "the job ended before an executor could be killed"
            for victim in cluster.executors("worker1"):
                # This job's executor: its working directory (work-dir/app-ID/EXEC-ID) holds its log.
                try:
                    workdir = pathlib.Path(os.readlink(f"/proc/{victim}/cwd"))
                    if workdir.parent.name in earlier:
                        continue
                    running = "Running task" in (workdir / "stderr").read_text(errors="replace")
                except OSError:
                    continue
                if running and not committed(out):
                    os.kill(victim, signal.SIGKILL)
                    killed.update(pid=victim, at=time.time(), committed=committed(out))
                    return
            time.sleep(0.2)
        raise AssertionError("no executor of worker1 ran a task in time")

    started = time.time()
    job, log = submit(shipped, [src, out, "--partitions", "16", "--task", "rate", "--samples", "2"], event_log_conf(events), before_wait=kill_mid_job)
    elapsed = time.time() - started
    assert job.returncode == 0, log[-5000:]
    assert killed and not killed["committed"] and not alive(killed["pid"])

    # The kill was seen and paid for: the executor removed, its running task lost and re-run.
    ev = events_of(events)
    removed = [e for e in ev if e["Event"] == "SparkListenerExecutorRemoved"]
    lost = [e for e in ev if e["Event"] == "SparkListenerTaskEnd" and e["Task End Reason"]["Reason"] == "ExecutorLostFailure"]
    added = [e for e in ev if e["Event"] == "SparkListenerExecutorAdded"]
    assert removed and lost, "no executor loss in the event log: the kill missed the job"
    # (The lost tasks may re-run on worker2's executor before worker1's replacement registers,
    # so a replacement is reported below, not required.)
    ok = [e for e in ev if e["Event"] == "SparkListenerTaskEnd" and e["Task End Reason"]["Reason"] == "Success"]
    assert {e["Task Info"]["Index"] for e in lost} <= {e["Task Info"]["Index"] for e in ok}
    rerun = [e["Task Info"] for e in ok if e["Task Info"]["Index"] in {x["Task Info"]["Index"] for x in lost}]
    print(
        f"\nkill: job {elapsed:.1f} s; executor removed {removed[0]['Timestamp'] / 1000 - killed['at']:.2f} s after the kill, "
        f"{len(added)} executor(s) added in all; {len(lost)} task(s) lost, re-run in "
        f"{[t['Finish Time'] - t['Launch Time'] for t in rerun]} ms"
    )

    joined = "".join((out / p).read_text() for p in part_files(out))
    cli_out = subprocess.run([cli, "rate", "--samples", "2", "-q", str(src)], check=False, capture_output=True, text=True)
    assert joined == cli_out.stdout


def test_speculative_duplicates_write_each_record_once(cluster, shipped, cli, tmp_path):
    """Speculative execution on, with one slow partition (hard puzzles at the end of easy ones):
    Spark starts a second copy of the slow task on the free executor; whichever copy finishes
    first is committed, and the output is the CLI's byte for byte, no record twice."""
    # 8 partitions of 4,000 records (all lines are 82 bytes long): 7 of easy puzzles, the last one
    # of hard ones, about 15 times slower to rate.
    easy = puzzles_of("generated_easy_2000.txt") * 14
    src = tmp_path / "mixed.txt"
    write_lines(src, easy + hard_puzzles()[:4000])
    out = tmp_path / "out"
    events = tmp_path / "events"
    speculation = [
        ("spark.speculation", "true"),
        ("spark.speculation.interval", "100ms"),
        ("spark.speculation.quantile", "0.5"),
        ("spark.speculation.multiplier", "1.5"),
        ("spark.speculation.minTaskRuntime", "500ms"),
        ("spark.speculation.efficiency.enabled", "false"),
    ]
    task = ["rate", "--samples", "16"]
    job, log = submit(shipped, [src, out, "--partitions", "8", "--task", *task], speculation + event_log_conf(events))
    assert job.returncode == 0, log[-5000:]
    ev = events_of(events)
    starts = [e["Task Info"] for e in ev if e["Event"] == "SparkListenerTaskStart"]
    speculative = [t for t in starts if t["Speculative"]]
    print(f"\nspeculation: {len(starts)} task attempts, {len(speculative)} speculative")
    assert speculative, "no speculative task was launched: the test did not test speculation"

    joined = "".join((out / p).read_text() for p in part_files(out))
    cli_out = subprocess.run([cli, *task, "-q", str(src)], check=False, capture_output=True, text=True)
    assert joined == cli_out.stdout
