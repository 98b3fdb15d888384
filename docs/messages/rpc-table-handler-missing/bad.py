from typing import ClassVar


class UtilityHandler:
    HANDLERS: ClassVar[dict[str, str]] = {
        "clear_kv_cache": "_handle_clear_kv_cache",
        "reset_prefix_cache": "_handle_reset_cache",  # [rpc-table-handler-missing]
    }

    def run(self, command):
        return getattr(self, self.HANDLERS[command])()

    def _handle_clear_kv_cache(self):
        return True

    def _handle_reset_prefix_cache(self):
        return True


class Engine:
    def __init__(self, client):
        self.client = client

    def clear(self):
        return self.client.broadcast_utility_command_sync("clear_kv_cache")

    def reset(self):
        return self.client.broadcast_utility_command_sync("reset_prefix_cache")
