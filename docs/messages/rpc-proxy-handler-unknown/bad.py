import ray


class PolicyActor:
    def save_model(self):
        return "saved"


class ReferenceActor:
    def forward(self, batch):
        return batch


class ActorGroup:
    def __init__(self, actor_type):
        self._actors = [actor_type.remote() for _ in range(2)]

    def async_save_model(self):
        return [actor.save_model.remote() for actor in self._actors]


def save(group):
    return ray.get(group.async_save_model())  # [rpc-proxy-handler-unknown]


def main():
    policy = ActorGroup(PolicyActor)
    reference = ActorGroup(ReferenceActor)
    save(policy)
    save(reference)
    return reference
