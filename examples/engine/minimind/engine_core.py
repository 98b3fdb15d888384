"""Engine cores: they drive the runners by sending RPCs by name."""

from __future__ import annotations

from typing import Any

from minimind.worker import RunnerManager


class EngineCore:
    """Talks to plain ModelRunners only."""

    def __init__(self, runner_mgr: RunnerManager) -> None:
        self.runner_mgr = runner_mgr

    def start(self, model_path: str) -> Any:
        self.runner_mgr.call_func("load_model", model_path, wait_out=True)
        return self.runner_mgr.call_func_with_aggregation("get_num_blocks")

    def step(self, batch: list[int]) -> Any:
        return self.runner_mgr.call_func("forward", batch, wait_out=True)


class PrefillEngineCore(EngineCore):
    """Computes the KV cache and ships it to a decode node."""

    def hand_off(self, request_ids: list[int]) -> Any:
        self.runner_mgr.call_func("send_kv_cache", request_ids, wait_out=True)
        # BUG: waits on an RPC only DisaggModelRunner answers, but DISAGG_RPCS lacks it
        return self.runner_mgr.call_func("export_kv_handles", wait_out=True)


class DecodeEngineCore(EngineCore):
    """Receives the KV cache from a prefill node and generates tokens."""

    def take_over(self, request_ids: list[int]) -> Any:
        self.runner_mgr.call_func("recv_kv_cache", request_ids, wait_out=True)
        # BUG: misspelled "reset_prefix_cache"; no runner answers it, so this waits forever
        return self.runner_mgr.call_func("reset_prefix_cahce", wait_out=True)

    def profile(self, phase: str) -> None:
        # BUG: the RPC name is built at run time, so nothing can check it statically
        self.runner_mgr.call_func(f"profile_{phase}")  # the workers log their timings
