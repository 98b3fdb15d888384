"""RPCs that only the disaggregated runner (DisaggModelRunner) answers.

An engine core must not send these to a plain ModelRunner, so the launcher
checks this list before it starts a prefill or decode engine.
"""

_KV_TRANSFER_RPCS = (
    "send_kv_cache",
    "recv_kv_cache",
)

DISAGG_RPCS = frozenset(
    _KV_TRANSFER_RPCS
    + (
        # BUG: listed, but no engine core waits on it any more (the call was removed)
        "drain_kv_queue",
    )
)
