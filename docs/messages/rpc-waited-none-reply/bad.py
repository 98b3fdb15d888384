class Runner:
    def load_weights(self, path):
        self.weights = open(path, "rb").read()  # no return: the reply is None


class Core:
    def __init__(self, mgr):
        self.mgr = mgr

    def start(self, path):
        self.mgr.call_func("load_weights", path, wait_out=True)  # [rpc-waited-none-reply]
