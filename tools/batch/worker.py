"""A local batch worker process (one per GPU): `python -m tools.batch.worker --slots N --backend B`.

Started by tools.batch.local.ProcessWorker with its own environment (CUDA_VISIBLE_DEVICES naming
one GPU). Reads {"op": "run", "id": n, "payload": {...}} and {"op": "cancel"} lines on stdin, writes
{"id": n, "item": {...}} or {"id": n, "warmed": bool} lines on stdout; ends at EOF (its sandbox
pool with it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from sandbox.pool import Pool
from tools.batch.jobs import failure_reply, run_payload
from tools.services import services


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.batch.worker")
    parser.add_argument("--slots", type=int, required=True)
    parser.add_argument("--backend", required=True)
    args = parser.parse_args(argv)
    Pool.get(args.backend, slots=args.slots, state_dir=services().home)  # this process's pool, sized
    out = os.fdopen(os.dup(1), "w", buffering=1)  # the protocol; anything else printed goes to stderr
    os.dup2(2, 1)
    write_lock = threading.Lock()
    cancels: set[threading.Event] = set()
    threads: list[threading.Thread] = []

    def work(number: int, payload: dict, cancel: threading.Event) -> None:
        try:
            reply = run_payload(payload, cancel)
        except Exception as exc:  # noqa: BLE001 - every request gets a reply, whatever it met here
            reply = failure_reply(str(payload.get("kind")), f"internal error in the batch worker: {exc!r}")
        finally:
            cancels.discard(cancel)
        with write_lock:
            out.write(json.dumps({"id": number} | reply) + "\n")
            out.flush()

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("op") == "cancel":
            for event in list(cancels):
                event.set()
        elif message.get("op") == "run":
            cancel = threading.Event()
            cancels.add(cancel)
            thread = threading.Thread(target=work, args=(int(message["id"]), message["payload"], cancel), daemon=True)
            thread.start()
            threads.append(thread)
    for event in list(cancels):  # the driver went away: nobody reads the results
        event.set()
    for thread in threads:
        thread.join(10)
    Pool.close_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
