FAST_RPCS = ("prefill",)


class Runner:
    def forward(self, batch):
        return batch


class FastRunner(Runner):
    def prefill(self, batch):
        return batch


class Core:
    def __init__(self, mgr, blocking):
        self.mgr = mgr
        self.blocking = blocking

    def step(self, batch):
        if self.blocking:
            return self.mgr.call_func("prefill", batch, wait_out=True)
        self.mgr.call_func("prefill", batch)
        return None
