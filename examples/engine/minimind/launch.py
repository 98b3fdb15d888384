"""Starts an engine: one runner per GPU, behind the manager its engine core drives.

A prefill or decode engine needs runners that answer the RPCs in DISAGG_RPCS, so the
launcher checks its runners against that list before it starts one.
"""

from __future__ import annotations

from minimind.config import DISAGG_RPCS
from minimind.engine_core import DecodeEngineCore, EngineCore, PrefillEngineCore
from minimind.model_runner import DisaggModelRunner, ModelRunner
from minimind.worker import RunnerManager


def start_engine(num_gpus: int) -> EngineCore:
    return EngineCore(RunnerManager([ModelRunner() for _ in range(num_gpus)]))


def start_prefill(num_gpus: int) -> PrefillEngineCore:
    return PrefillEngineCore(_disagg_runners(num_gpus))


def start_decode(num_gpus: int) -> DecodeEngineCore:
    return DecodeEngineCore(_disagg_runners(num_gpus))


def _disagg_runners(num_gpus: int) -> RunnerManager:
    runners = [DisaggModelRunner() for _ in range(num_gpus)]
    for name in DISAGG_RPCS:
        if not hasattr(runners[0], name):
            raise RuntimeError(f"the runners don't answer {name!r}")
    return RunnerManager(runners)
