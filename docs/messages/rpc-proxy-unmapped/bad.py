class WorkerGroup:
    def spawn(self, prefix_set):
        return dict.fromkeys(prefix_set, self)


class RolloutWorker:
    def generate(self, prompts):
        return prompts


class Trainer:
    def __init__(self, colocated_wg):
        self.colocated_wg = colocated_wg
        self.rollout_wg = colocated_wg.spawn(prefix_set=["rollout"])["rollout"]

    def step(self, prompts):
        return self.colocated_wg.rollout_generate(prompts)  # [rpc-proxy-unmapped]
