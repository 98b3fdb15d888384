"""How an RPC reaches a runner: by name, looked up with getattr.

A stand-in for the real manager, which sends the name to one worker process
per GPU and collects their replies.
"""

from __future__ import annotations

from typing import Any


class RunnerManager:
    def __init__(self, runners: list[Any]) -> None:
        self.runners = runners

    def call_func(self, name: str, *args: Any, wait_out: bool = False) -> list[Any] | None:
        replies = self._broadcast(name, args)
        return replies if wait_out else None

    def call_func_with_aggregation(self, name: str, *args: Any) -> list[Any]:
        return self._broadcast(name, args)

    def _broadcast(self, name: str, args: tuple[Any, ...]) -> list[Any]:
        replies = []
        for runner in self.runners:
            handler = getattr(runner, name, None)
            if handler is None:
                # The real worker skips an unknown name silently and never
                # replies, so a caller waiting for the reply blocks forever.
                continue
            replies.append(handler(*args))
        return replies
