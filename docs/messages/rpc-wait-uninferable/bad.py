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
        return self.mgr.call_func("prefill", batch, wait_out=self.blocking)  # [rpc-wait-uninferable]
