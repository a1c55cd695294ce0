"""The Ray engine (optional: pip install 'kernel-eval-mcp[ray]'): one actor per GPU or per CPU slot.

Each actor is a process running this package's trusted code: its own sandbox pool (the candidates
still run in the sandbox, inside the actor) and its own golden cache in memory. Sources go to the
actors through Ray's object store (a task's reference once, not once per candidate) and results
come back the same way. An actor on the driver's node shares the driver's $KERNEL_EVAL_HOME (run
store, goldens, seed pools); one on another node keeps its own goldens and seed pools there and
sends each run's stored entry back, so the driver's run store has every run_id of the batch.
"""

from __future__ import annotations

import os
import threading

from sandbox import backends
from sandbox.pool import Pool
from tools.batch.jobs import Job, failure_reply, run_payload
from tools.batch.scheduler import Done, Outcome, outcome_of
from tools.errors import ToolInputError
from tools.services import services

#: Sandbox slots of an actor that owns a GPU (a CPU-slot actor has one).
GPU_ACTOR_SLOTS = 4


def import_ray():
    try:
        import ray
    except ImportError:
        raise ToolInputError(
            "engine 'ray' needs Ray: pip install 'kernel-eval-mcp[ray]' (or use engine 'local')"
        ) from None
    return ray


class _Actor:
    """The actor's body (made a Ray actor class by _actor_class, so this module imports without Ray)."""

    def __init__(self, driver_home: str, driver_node: str, slots: int, backend: str, home: str | None):
        import ray

        same_node = ray.get_runtime_context().get_node_id() == driver_node
        home = home or (driver_home if same_node else None)
        if home:
            os.environ["KERNEL_EVAL_HOME"] = home
        self.ship_runs = str(services().home) != driver_home or not same_node
        Pool.get(backend, slots=slots, state_dir=services().home)
        self._cancels: set[threading.Event] = set()

    def pid(self) -> int:
        return os.getpid()

    def run(self, payload: dict, reference: dict) -> dict:
        cancel = threading.Event()
        self._cancels.add(cancel)
        try:
            reply = run_payload(payload | {"provided": payload["provided"] | reference}, cancel)
        finally:
            self._cancels.discard(cancel)
        result = (reply.get("item") or {}).get("result")
        if self.ship_runs and result:
            store, run_id = services().runs, result["run_id"]
            reply["run"] = (store.result(run_id), store.task(run_id), store.tensors(run_id))
        return reply

    def cancel(self) -> None:
        for event in list(self._cancels):
            event.set()


def _actor_class(ray):
    return ray.remote(_Actor)


class RayWorker:
    def __init__(self, ray, actor, name: str, slots: int):
        self.ray, self.actor, self.name, self.slots, self.alive = ray, actor, name, slots, True
        self._references: dict[str, object] = {}  # task -> ObjectRef of its reference's sources

    def _reference_ref(self, job: Job):
        ref = self._references.get(job.task)
        if ref is None:
            reference = {job.request.reference: job.provided[job.request.reference]}
            ref = self._references[job.task] = self.ray.put(reference)
        return ref

    def submit(self, job: Job, done: Done) -> None:
        payload = job.payload()
        payload["provided"] = {k: v for k, v in job.provided.items() if k != job.request.reference}
        ref = self.actor.run.remote(payload, self._reference_ref(job))
        threading.Thread(target=self._wait, args=(ref, job, done), daemon=True).start()

    def _wait(self, ref, job: Job, done: Done) -> None:
        ray = self.ray
        try:
            reply = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as exc:
            done(self, job, Outcome(lost=f"Ray actor {self.name} died ({type(exc).__name__})"))
            return
        except ray.exceptions.TaskCancelledError:
            done(self, job, Outcome(lost=f"Ray task on {self.name} cancelled"))
            return
        except Exception as exc:  # noqa: BLE001 - the task raised inside the actor: reported, the batch goes on
            done(self, job, outcome_of(failure_reply(job.kind, f"internal error on {self.name}: {exc!r}"), self.name))
            return
        if "run" in reply:  # judged on another node: keep the run in this store too
            services().runs.save(reply["item"]["result"]["run_id"], *reply["run"])
        done(self, job, outcome_of(reply, self.name))

    def cancel(self) -> None:
        try:
            self.actor.cancel.remote()
        except Exception:  # noqa: BLE001 - a dead actor has nothing to cancel
            pass

    def close(self) -> None:
        try:
            self.ray.kill(self.actor)
        except Exception:  # noqa: BLE001
            pass


def _check_listening(address: str, timeout_s: float = 5.0) -> None:
    """Fail at once when nothing listens at host:port (Ray itself retries for minutes)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ToolInputError(f"--ray-address {address!r}: give the head node's host:port (e.g. 10.0.0.5:6379)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ToolInputError(
            f"cannot connect to Ray at {address}: {exc.strerror or exc}; start a cluster with `ray start --head` "
            "and pass the address it prints, or leave --ray-address out for a local one"
        ) from None


class RaySession:
    """Connects to (or starts) Ray, makes the actors; close() kills them, and stops a Ray it started."""

    def __init__(self, address: str | None, backend: str, actors: int | None = None, actor_home: str | None = None):
        """`actor_home`: the actors' $KERNEL_EVAL_HOME (default: the driver's on its node, the node's own
        default elsewhere); the runs of an actor with another home are copied into the driver's store."""
        ray = self.ray = import_ray()
        self.started = False
        if not ray.is_initialized():
            if address:
                _check_listening(address)
            try:
                ray.init(address=address, log_to_driver=False, include_dashboard=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise ToolInputError(
                    f"cannot connect to Ray at {address or 'a new local cluster'}: {exc}; start one with "
                    "`ray start --head` and pass its address (host:port), or leave --ray-address out"
                ) from None
            self.started = True
        resources = ray.cluster_resources()
        gpu = backends.by_name(backend).torch_cuda  # Ray's GPU resource
        count = actors or int(resources.get("GPU" if gpu else "CPU", 0))
        if count < 1:
            raise ToolInputError(f"the Ray cluster has no {'GPU' if gpu else 'CPU'} to run actors on: {resources}")
        slots = GPU_ACTOR_SLOTS if gpu else 1
        cls = _actor_class(ray).options(
            num_gpus=1 if gpu else 0, num_cpus=0 if gpu else 1, max_concurrency=slots + 2, max_restarts=0
        )
        driver_node = ray.get_runtime_context().get_node_id()
        self.workers = []
        for i in range(count):
            actor = cls.remote(str(services().home), driver_node, slots, backend, actor_home)
            self.workers.append(RayWorker(ray, actor, f"ray:{'gpu' if gpu else 'cpu'}{i}", slots))

    def pids(self) -> list[int]:
        return self.ray.get([w.actor.pid.remote() for w in self.workers])

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
        if self.started:
            self.ray.shutdown()
