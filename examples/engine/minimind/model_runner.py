"""Runners: each worker process owns one and answers RPCs by method name."""

from __future__ import annotations

from typing import Any


class ModelRunner:
    """Answers the RPCs every engine core may send."""

    def load_model(self, path: str) -> None:
        self.path = path

    def get_num_blocks(self) -> int:
        return 1024

    def forward(self, batch: list[int]) -> list[int]:
        return batch

    def reset_prefix_cache(self) -> bool:
        return True


class DisaggModelRunner(ModelRunner):
    """Prefill/decode disaggregation: also moves the KV cache between nodes."""

    def send_kv_cache(self, request_ids: list[int]) -> int:
        return len(request_ids)

    def recv_kv_cache(self, request_ids: list[int]) -> int:
        return len(request_ids)

    def drain_kv_queue(self) -> None:
        pass

    def export_kv_handles(self) -> dict[str, Any]:
        return {}

    def profile_prefill(self) -> float:
        return 0.0

    def profile_decode(self) -> float:
        return 0.0
