FAST_RPCS = ("prefill",)


class Runner:
    def forward(self, batch):
        return batch

    def exit(self):
        return True


class FastRunner(Runner):
    def prefill(self, batch):
        return batch


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def step(self, batch):
        kv = self.mgr.call_func("prefill", batch, wait_out=True)
        return self.mgr.call_func("fowrard", kv, wait_out=True)  # [rpc-unanswered]

    def shutdown(self):
        self.mgr.call_func("exti")  # [rpc-unanswered]
