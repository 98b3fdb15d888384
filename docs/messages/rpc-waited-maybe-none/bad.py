class Runner:
    def __init__(self, rank):
        self.rank = rank

    def kv_stats(self):
        if not self.ready:
            return None  # dropped: a caller waiting on this rank blocks forever
        return {"blocks": 128}


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def report(self):
        return self.mgr.call_func("kv_stats", wait_out=True)  # [rpc-waited-maybe-none]
