"""What the limits on answers from a server cost, and what a hostile server costs the app.

1. A large honest answer (64 MiB of JSON over loopback, by default), read with the app's
   bounded read (``bounded_http.bounded_post``: streamed, counted, under a deadline, through a
   pinned session) and, for comparison, with a plain ``requests.post(...).content``; each the
   median of ``--repeat`` reads, in seconds, with the peak memory Python allocated (MB).
2. Each hostile server of ``tests/hostile_server.py`` against a SPARQL endpoint source: a
   2 GiB body, an endless chunked body (both stop at the cap, 128 MiB unless
   ``TRACE_EXPLORER_RESPONSE_MAX_MB`` says otherwise), and a body that drips a byte every
   0.2 s (stops at the 5 s deadline): seconds until the error, peak MB, and the error line.

Run: ``.venv/bin/python benchmarks/bounded_answers.py [--mb 64] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hostile_server import HostileServer  # noqa: E402
from trace_explorer.network.bounded_http import bounded_post  # noqa: E402
from trace_explorer.sources.endpoint import EndpointSource  # noqa: E402
from trace_explorer.network.pinned_http import pinned_session  # noqa: E402


def measured(call) -> tuple[float, float, object]:
    """(seconds, peak MB allocated by Python, result or exception) of ``call()``."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        outcome = call()
    except Exception as error:  # noqa: BLE001 - reported
        outcome = error
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak, outcome


def honest(mb: int, repeat: int) -> None:
    import requests

    body = b"[" + b"1," * (mb * 1024 * 1024 // 2 - 1) + b"1]"
    with HostileServer("json", body=body) as server:
        pins = {("127.0.0.1", server.port): ("127.0.0.1",)}
        reads = {
            "bounded (app)": lambda: len(bounded_post(pinned_session(pins), server.url, timeout=60,
                                                      max_bytes=2 * len(body)).body),
            "plain requests": lambda: len(requests.post(server.url, timeout=60).content),
        }
        print(f"1. an honest {len(body) / 1e6:.0f} MB answer over loopback (median of {repeat})")
        for name, read in reads.items():
            runs = [measured(read) for _ in range(repeat)]
            assert all(r[2] == len(body) for r in runs), runs
            print(f"   {name:16} {statistics.median(r[0] for r in runs):6.2f} s   "
                  f"peak {max(r[1] for r in runs):6.0f} MB")


def hostile() -> None:
    print("2. hostile servers, against a SPARQL endpoint source (timeout 5 s)")
    for mode, options in (("huge", {}), ("chunked", {}), ("drip", {"drip_s": 0.2})):
        with HostileServer(mode, **options) as server:
            source = EndpointSource(server.url + "sparql", timeout=5.0)
            seconds, peak, error = measured(lambda: source.select("SELECT ?s WHERE { ?s ?p ?o }"))
            print(f"   {mode:8} {seconds:6.2f} s   peak {peak:6.0f} MB   {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=64, help="size of the honest answer, MiB")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    honest(args.mb, args.repeat)
    hostile()


if __name__ == "__main__":
    main()
