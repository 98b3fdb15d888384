import ray


class MegatronActor:
    def fit(self, batch):
        return len(batch)

    def save_model(self, step):
        return step


class FSDPActor:
    def fit(self, batch):
        return len(batch)

    def save_model(self, step):
        return step


class TrainGroup:
    def __init__(self, actor_handlers):
        self._actor_handlers = actor_handlers

    def fit(self, batch):
        return ray.get([actor.fit.remote(batch) for actor in self._actor_handlers])

    def save_model(self, step):
        ray.get([actor.save_model.remote(step) for actor in self._actor_handlers])
