"""What the benchmarks read of processes, through psutil (Linux, Windows, macOS alike): CPU
time, resident memory, the ``curling server`` children of a process, CPU pinning, load.

Every ``pid`` is a real process id: psutil's pid 0 is the kernel's idle process on Windows, so
"this process" is ``os.getpid()``, never 0.
"""

from __future__ import annotations

import os
import statistics
import time

import psutil


def allowed_cpus(pid: int | None = None) -> list[int] | None:
    """The CPUs process ``pid`` (default: this one) may run on; None where the OS does not
    say (macOS)."""
    process = psutil.Process(pid or os.getpid())
    return process.cpu_affinity() if hasattr(process, "cpu_affinity") else None


def pin(pid: int, cpu: int | None) -> None:
    """Run process ``pid`` on CPU ``cpu`` only (nothing when ``cpu`` is None or pinning is not
    supported)."""
    process = psutil.Process(pid)
    if cpu is not None and hasattr(process, "cpu_affinity"):
        process.cpu_affinity([cpu])


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (NaN if it is gone)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return float("nan")
    return times.user + times.system


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid``, bytes (0 if it is gone)."""
    try:
        return psutil.Process(pid).memory_info().rss
    except psutil.Error:
        return 0


def server_children(parent: int) -> list[int]:
    """PIDs of the ``curling server`` children of process ``parent``."""
    pids = []
    for child in psutil.Process(parent).children():
        try:
            cmd = child.cmdline()
        except psutil.Error:  # gone, or not ours to read
            continue
        if "rllib_curling" in cmd and "server" in cmd:
            pids.append(child.pid)
    return pids


def load_average() -> float:
    """The 1-minute load average (on Windows psutil's estimate, 0.0 for its first 5 s); NaN
    where the system does not tell (Windows with performance counters disabled, Wine)."""
    try:
        return psutil.getloadavg()[0]
    except (RuntimeError, OSError):
        return float("nan")


def median_rate(fn: object, shots: int, repeats: int) -> tuple[float, float]:
    """(shots per wall-clock second, shots per CPU second of this process), medians."""
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()  # type: ignore[operator]
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return shots / statistics.median(wall), per_cpu_second(shots, statistics.median(cpu))


def per_cpu_second(shots: int, cpu_seconds: float) -> float:
    """Shots per CPU second; NaN when too little CPU time was counted to tell (Windows' process
    clock ticks every 15.6 ms)."""
    return shots / cpu_seconds if cpu_seconds > 0 else float("nan")


def pin_one_core() -> int | None:
    """Run this process on one CPU (the first allowed); returns it, or None if unsupported."""
    cpus = allowed_cpus()
    if not cpus:
        return None
    pin(os.getpid(), min(cpus))
    return min(cpus)
