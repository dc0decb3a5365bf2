"""The Python examples of README.md and docs/*.md, run, so that they cannot go stale.

- Every ```python block is exec()'d in a fresh namespace; its asserts are its checks.
- Every ```sh block with a line ``python -m sudoku_batch...`` (the Spark entry point) is run with
  bash (``-euo pipefail``), ``python`` being this interpreter; its ``pip`` lines are skipped.
  ``tests/docs.rs`` runs the other shell blocks.

The blocks of one Markdown file run in order in one temporary directory holding a symlink
``data`` to the repository's ``data/`` (so a block may use a file an earlier one wrote), with the
CLI binary first on ``PATH`` when it is built (``$SUDOKU_BATCH_BIN`` or target/release). A block
whose top comment lines include ``# not run by the tests: <reason>`` is skipped with that reason;
one with the line ``# run on a standalone cluster by python/tests/test_spark_cluster.py`` is
left to that test, which runs it on a standalone Spark cluster.
Blocks that use Spark (``pyspark`` or ``sudoku_batch.spark``) run only where pyspark is installed
(in CI it must be), and are skipped otherwise; blocks that call the ``sudoku-batch`` binary are
skipped when it is not built.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import REPO

NOT_RUN = "# not run by the tests"
FENCE = re.compile(r"^```(\S*)\s*$")


def documents():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def blocks(path):
    """(language, first content line, source) of each fenced block of a Markdown file."""
    out, lang, start, body = [], None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if lang is None:
            m = FENCE.match(line)
            if m:
                lang, start, body = m.group(1), number + 1, []
        elif line.rstrip() == "```":
            out.append((lang, start, "\n".join(body) + "\n"))
            lang = None
        else:
            body.append(line)
    assert lang is None, f"{path.name}: a code block is never closed"
    return out


# The Spark cluster recipe's blocks: test_spark_cluster.py runs them, on a standalone cluster.
CLUSTER = "# run on a standalone cluster by python/tests/test_spark_cluster.py"


def is_spark_shell(source):
    lines = source.splitlines()
    cluster = any(l.strip() == CLUSTER for l in lines)
    return not cluster and any(l.lstrip().startswith("python -m sudoku_batch") for l in lines)


def examples():
    """One pytest param per runnable block, in document order."""
    params = []
    for doc in documents():
        for lang, line, source in blocks(doc):
            if lang == "python" or (lang == "sh" and is_spark_shell(source)):
                name = f"{doc.relative_to(REPO)}:{line}"
                params.append(pytest.param(doc.name, lang, source, id=name))
    return params


def not_run_reason(source):
    for line in source.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return None
        if stripped.startswith(NOT_RUN):
            return stripped[2:]
    return None


def needs_spark(source):
    return "pyspark" in source or "sudoku_batch.spark" in source


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory):
    """One working directory per Markdown file, shared by its blocks in order."""
    dirs = {}

    def get(doc):
        if doc not in dirs:
            d = tmp_path_factory.mktemp(doc.replace(".", "_"))
            (d / "data").symlink_to(REPO / "data")
            dirs[doc] = d
        return dirs[doc]

    yield get
    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory):
    """A directory with the CLI binary as `sudoku-batch`, or None if it is not built."""
    path = os.environ.get("SUDOKU_BATCH_BIN") or str(REPO / "target" / "release" / "sudoku-batch")
    if not os.path.isfile(path):
        return None
    d = tmp_path_factory.mktemp("bin")
    (d / "sudoku-batch").symlink_to(path)
    return d


def shell_script(source):
    """The bash script for a Spark shell block: `python` is this interpreter; pip is skipped."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("pip "):
            continue
        if stripped.startswith("python "):
            line = line.replace("python ", '"$DOCS_PYTHON" ', 1)
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("doc,lang,source", examples())
def test_doc_example(doc, lang, source, workdirs, bin_dir, monkeypatch):
    reason = not_run_reason(source)
    if reason:
        pytest.skip(reason)
    if needs_spark(source):
        if os.environ.get("CI"):
            import pyspark  # noqa: F401  (CI installs it: a missing pyspark must fail, not skip)
        else:
            pytest.importorskip("pyspark", reason="the example needs pyspark")
    uses_cli = re.search(r"(^|[\s\"'(])sudoku-batch ", source, re.M) is not None
    if uses_cli and bin_dir is None:
        pytest.skip("the example calls the sudoku-batch binary, which is not built")
    work = workdirs(doc)
    monkeypatch.chdir(work)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    if bin_dir is not None:
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    if lang == "python":
        exec(compile(source, f"<{doc} example>", "exec"), {"__name__": "__docs__"})
    else:
        env = dict(os.environ, DOCS_PYTHON=sys.executable)
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", shell_script(source)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"


def test_the_docs_have_python_examples():
    # Guards against a parser that silently finds nothing to run.
    readme = [p for p in examples() if p.values[0] == "README.md"]
    assert any(p.values[1] == "python" for p in readme)
    assert any(p.values[1] == "sh" for p in readme)
