class Runner:
    def reset_cache(self):
        self.cache = {}

    def forward(self, batch):
        return [token + 1 for token in batch]

    def exit(self):
        return True


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def step(self, batch):
        self.mgr.call_func("reset_cache")  # returns None: no reply is sent
        return self.mgr.call_func("forward", batch, wait_out=True)

    def shutdown(self):
        # Sent last, nothing waits after it: a known benign shape. Silence it by id
        # (pylint takes a name starting with "rp" for a report id).
        self.mgr.call_func("exit")  # pylint: disable=rpc-unwaited-reply
