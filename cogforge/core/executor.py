"""Where a build's expensive, independent work runs: local processes or a Ray cluster.

An executor maps a function over arguments and yields the results in argument
order, with a bounded number of tasks in flight, so a build's output never
depends on which worker ran what or in which order tasks finished. Two kinds:

- ``local`` (the default): a pool of forked processes on this machine, or this
  process alone with ``processes=1``.
- ``ray``: tasks on a Ray cluster (``ray.init(address=...)``). Scheduling, object
  transfer, placement and the retry of a task whose worker died are Ray's; an
  exception raised by the task itself is not retried and stops the build.

A task's function must be picklable by reference: a module-level function, or a
``functools.partial`` of one.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from cogforge.core.errors import UserError

EXECUTORS = ("local", "ray")
# Ray retries a task this many times when its worker process or node dies.
RAY_MAX_RETRIES = 3


class TaskFailed(RuntimeError):
    """A task raised: ``label`` names it (a shard, an image), the message says why."""

    def __init__(self, label: str, cause: str):
        super().__init__(f"{label}: {cause}")
        self.label = label
        self.cause = cause


class ExecutorError(UserError, RuntimeError):
    """An executor that cannot start (unknown name, no cluster at the address)."""


def _label_default(arg: Any) -> str:
    return repr(arg)[:80]


class Executor:
    name = "?"
    workers = 1

    def imap(self, fn: Callable[[Any], Any], args: Iterable[Any],
             label: Callable[[Any], str] = _label_default) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _in_order(submit: Callable[[Any], Any], result: Callable[[Any], Any], args: Iterable[Any],
              window: int, label: Callable[[Any], str]) -> Iterator[Any]:
    """Results of ``submit(arg)`` in argument order, at most ``window`` in flight."""
    pending: deque = deque()
    for arg in args:
        pending.append((arg, submit(arg)))
        if len(pending) >= window:
            yield _take(pending.popleft(), result, label)
    while pending:
        yield _take(pending.popleft(), result, label)


def _take(entry: tuple[Any, Any], result: Callable[[Any], Any], label: Callable[[Any], str]) -> Any:
    arg, handle = entry
    try:
        return result(handle)
    except TaskFailed:
        raise
    except Exception as err:  # the task's own exception, as the engine reports it
        _reraise_user_error(err)
        raise TaskFailed(label(arg), _cause(err)) from err


def _reraise_user_error(err: BaseException) -> None:
    """A mistake in what a person gave (a bad photo file) stays the one line it is."""
    cause = getattr(err, "cause", None)
    for candidate in (err, cause):
        if isinstance(candidate, UserError):
            raise candidate


def _cause(err: BaseException) -> str:
    cause = getattr(err, "cause", None)  # ray.exceptions.RayTaskError wraps the task's exception
    if isinstance(cause, BaseException):
        err = cause
    return f"{type(err).__name__}: {err}".splitlines()[0]


class LocalExecutor(Executor):
    """Forked worker processes on this machine (``processes=1``: this process)."""

    name = "local"

    def __init__(self, processes: int | None = None):
        self.workers = max(1, processes or min(os.cpu_count() or 1, 8))
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"))
        return self._pool

    def imap(self, fn, args, label=_label_default):
        if self.workers == 1:
            for arg in args:
                try:
                    yield fn(arg)
                except TaskFailed:
                    raise
                except Exception as err:
                    _reraise_user_error(err)
                    raise TaskFailed(label(arg), _cause(err)) from err
            return
        pool = self._get_pool()
        yield from _in_order(lambda a: pool.submit(fn, a), Future.result, args, 4 * self.workers, label)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


class RayExecutor(Executor):
    """Tasks on a Ray cluster: ``address`` as ``ray.init`` takes it (``None``: the cluster
    this process is connected to already, or a new local one)."""

    name = "ray"

    def __init__(self, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise ExecutorError("--executor ray needs the ray package: `make setup` installs it "
                                "(or pip install 'cogforge[ray]')") from None
        self._ray = ray
        self._owns = False
        self._sigterm = signal.getsignal(signal.SIGTERM)  # ray.init installs its own; put back on close
        if not ray.is_initialized():
            if address and address != "auto":
                _reachable(address)
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, logging_level="ERROR")
            except (ConnectionError, ValueError, RuntimeError) as err:
                raise ExecutorError(f"no Ray cluster at {address!r} ({str(err).splitlines()[0]}); start one "
                                    "with `ray start --head` or give its address with --address HOST:PORT") from None
            self._owns = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        # SPREAD: the default strategy puts a task where its largest argument lives, and the
        # function every task shares (ray.put on the driver) would keep a build on the head node.
        self._call = ray.remote(max_retries=RAY_MAX_RETRIES, retry_exceptions=False,
                                scheduling_strategy="SPREAD")(_apply)

    def imap(self, fn, args, label=_label_default):
        ray = self._ray
        fn_ref = ray.put(fn)
        yield from _in_order(lambda a: self._call.remote(fn_ref, a), ray.get, args, 2 * self.workers + 2, label)

    def close(self) -> None:
        if self._owns:
            self._ray.shutdown()
            self._owns = False
            signal.signal(signal.SIGTERM, self._sigterm)


def _reachable(address: str) -> None:
    """Refuse at once an address nothing listens on (``ray.init`` would retry for minutes)."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        raise ExecutorError(f"--address {address!r}: give the Ray cluster's HOST:PORT, e.g. 10.0.0.5:6379")
    try:  # Ray dials 127.0.0.1 and localhost as this machine's own address: probe what it dials
        from ray._private.services import canonicalize_bootstrap_address

        host = (canonicalize_bootstrap_address(f"{host}:{port}") or f"{host}:{port}").rpartition(":")[0]
    except (ImportError, ValueError, OSError):
        pass
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as err:
        raise ExecutorError(f"--address {address}: no Ray cluster answers there ({err.strerror or err}); "
                            "start one with `ray start --head` and give its address") from None


def _apply(fn: Callable[[Any], Any], arg: Any) -> Any:
    return fn(arg)


def make_executor(name: str = "local", address: str | None = None, processes: int | None = None) -> Executor:
    """The executor called ``name`` (``local`` or ``ray``)."""
    if processes is not None and processes < 1:
        raise ExecutorError(f"--processes {processes}: give 1 or more worker processes")
    if name == "local":
        if address:
            raise ExecutorError("--address is for --executor ray; the local executor runs on this machine")
        return LocalExecutor(processes)
    if name == "ray":
        return RayExecutor(address)
    raise ExecutorError(f"unknown executor {name!r}; use one of {', '.join(EXECUTORS)}")


_current: list[Executor] = []


def current() -> Executor | None:
    """The executor set by :func:`use`, or None (then drawing uses local processes)."""
    return _current[-1] if _current else None


@contextmanager
def use(executor: Executor):
    """Run a build's drawing (:func:`cogforge.core.parallel.draw_all`) on ``executor``."""
    _current.append(executor)
    try:
        yield executor
    finally:
        _current.pop()
