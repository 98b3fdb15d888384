"""A worker wrapper whose worker class is named by strings, shaped like vLLM 0.11's
``WorkerWrapperBase``: ``resolve_obj_by_qualname(config.worker_cls)`` builds
``self.worker``, the wrapper's ``__getattr__`` passes every name it lacks on to it, the
setting defaults to ``"auto"`` and each platform assigns a literal naming a worker of the
project, ``EngineArgs`` copies it (``worker_cls = ParallelConfig.worker_cls``,
``worker_cls=self.worker_cls``) and a user's ``--worker-cls`` may name any class.

``init`` proves the wrapper and the workers the literals name; ``"auto"`` names no class
and the resolver raises on it (``qualname.rsplit(".", 1)`` into two names). The
annotation ``self.worker: WorkerBase | None`` admits a worker no literal names
(``NeuronWorker``, whose ``execute_model`` takes another argument): it is not written.
Where the strings don't close the set (a value read at run time, a resolver that may
name anything), the annotation is what says which classes: the wrapper and each class it
admits are written ``one-of``.
Each test runs the real console script on the fixture ``init_named_classes``, whose own
table is the hand-written one init's is compared with.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT, edited_copy, run_cli, run_pylint
from test_init_commented import located

from pylint_rpcsurface.config import load_config

FIXTURE = ROOT / "tests" / "fixtures" / "init_named_classes"
WRAPPER = "wk.worker_base.WorkerWrapperBase"
NAMED = {WRAPPER, "wk.workers.GPUWorker", "wk.workers.CPUWorker"}
NOTE = "a class supplied from outside the project is not covered"
REFUSED = "# Not proven: the surface of wk.executor.Executor"
# The wrapper, and what its ``self.worker: WorkerBase | None`` admits: WorkerBase and each
# class of the project deriving from it (every class of wk/workers.py).
ADMITTED = {
    WRAPPER,
    *(f"wk.workers.{name}" for name in ("WorkerBase", "GPUWorker", "CPUWorker", "NeuronWorker")),
}

Edits = dict[str, list[tuple[str, str]]]


def _fixture(tmp_path: Path, edits: Edits | None = None, *, hand: bool = False) -> Path:
    """The fixture without its hand-written table (with it if *hand*), each file in
    *edits* with its text replaced (old, new)."""
    dest = tmp_path / ("hand" if hand else "wk")
    return edited_copy(FIXTURE, dest, edits or {}, None if hand else '[project]\nname = "wk"\n')


def _handlers(folder: Path) -> set[str]:
    return {h for s in load_config(folder / "pyproject.toml").surfaces for h in s.handlers}


def _one_of(folder: Path) -> set[str]:
    """The handlers of the one-of surfaces *folder*'s table has."""
    surfaces = load_config(folder / "pyproject.toml").surfaces
    return {h for s in surfaces if s.one_of for h in s.handlers}


def test_the_wrapper_and_the_workers_its_strings_name_are_the_handlers(tmp_path: Path) -> None:
    folder = _fixture(tmp_path)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert REFUSED not in text, text
    handlers = _handlers(folder)
    # The wrapper answers its own methods, a worker the rest; the CPU worker, a GPU
    # worker answering no other name, may be left to its base.
    assert {WRAPPER, "wk.workers.GPUWorker"} <= handlers <= NAMED, text
    # Each worker with the strings that name it, "auto" named as no class, and the note.
    assert "'wk.workers.GPUWorker' (wk/platforms/cuda.py:8)" in text, text
    assert "'auto' (wk/config.py:11) names no class" in text, text
    assert "unpacks qualname.rsplit('.', 1) into two names" in text, text
    assert NOTE in text
    # The active table finds what the hand-written one finds (the misspelt name), and
    # nothing more: NeuronWorker's execute_model(batch, extra) is not judged.
    found = located(folder)
    assert found == located(FIXTURE)
    assert ("wk/executor.py", 37, "rpc-unanswered") in found
    # pylint, on the whole tree and on the caller's file alone, agrees with check.
    planted = {(symbol, path, line) for path, line, symbol in found}
    assert run_pylint(folder, "wk").keys() == planted
    assert run_pylint(folder, "wk/executor.py").keys() == planted


NOT_PROVEN: dict[str, Edits] = {
    # A value read at run time: the set of classes can't be listed.
    "from-environment": {
        "wk/platforms/cpu.py": [
            ('config.worker_cls = "wk.workers.CPUWorker"', 'config.worker_cls = os.environ["W"]'),
            ("from wk.config", "import os\n\nfrom wk.config"),
        ]
    },
    # A resolver that doesn't split on the dot: "auto" may name something.
    "auto-not-refused": {
        "wk/utils.py": [
            (
                '    module_name, obj_name = qualname.rsplit(".", 1)\n'
                "    module = importlib.import_module(module_name)\n"
                "    return getattr(module, obj_name)\n",
                "    return importlib.import_module(qualname)\n",
            )
        ]
    },
    # A second definition of the resolver that doesn't split on the dot: "auto" may name
    # something when that one runs.
    "resolver-redefined": {
        "wk/utils.py": [
            ("import importlib\n", "import importlib\nimport os\nimport pydoc\n"),
            (
                "\n\ndef run_method(",
                '\n\nif os.environ.get("LOCATE"):\n\n'
                "    def resolve_obj_by_qualname(qualname: str) -> Any:  # noqa: F811\n"
                "        return pydoc.locate(qualname)\n\n\ndef run_method(",
            ),
        ]
    },
    # The worker set from outside the wrapper: the annotation is all that says what.
    "written-from-outside": {
        "wk/executor.py": [
            (
                "        self.driver_worker = WorkerWrapperBase(rpc_rank=0)\n",
                "        self.driver_worker = WorkerWrapperBase(rpc_rank=0)\n"
                "        self.driver_worker.worker = config.prebuilt\n",
            )
        ]
    },
}


@pytest.mark.parametrize("case", sorted(NOT_PROVEN))
def test_a_worker_set_not_closed_is_written_one_of(tmp_path: Path, case: str) -> None:
    # The strings don't say which workers: the annotation does, each class it admits
    # (NeuronWorker, whose execute_model takes another argument, among them), one-of.
    folder = _fixture(tmp_path, NOT_PROVEN[case])
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert REFUSED not in text, text
    assert _one_of(folder) == ADMITTED, text
    assert NOTE in text
    # It finds nothing the hand-written table doesn't: NeuronWorker's execute_model is
    # not judged alone.
    assert located(folder) <= located(_fixture(tmp_path, NOT_PROVEN[case], hand=True))


# The module the string names rebinds the class's name to one from outside the project
# when a package is installed, as vLLM 0.11's tpu_worker.py does (``TPUWorker =
# TpuInferenceWorker``): the string may name either, and the checker can't name it.
REBOUND = (
    "class NeuronWorker(WorkerBase):",
    'if os.environ.get("EXTERNAL_CPU_WORKER"):\n'
    "    from cpu_plugin.worker import CPUWorker  # noqa: F811\n\n\n"
    "class NeuronWorker(WorkerBase):",
)
IMPORT_OS = ('"""The workers:', 'import os\n\n"""The workers:')


def test_a_class_whose_name_is_rebound_outside_the_project_is_not_covered(
    tmp_path: Path,
) -> None:
    edits: Edits = {"wk/workers.py": [REBOUND, IMPORT_OS]}
    folder = _fixture(tmp_path, edits)
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert REFUSED not in text, text
    # Answering no public name the GPU worker doesn't, it is left out, and said so.
    assert _handlers(folder) == {WRAPPER, "wk.workers.GPUWorker"}, text
    assert "'wk.workers.CPUWorker' (wk/platforms/cpu.py:8): wk/workers.py:" in text, text
    assert "rebinds CPUWorker, so the string may name a class from outside the project" in text
    hand = _fixture(tmp_path, edits, hand=True)
    table = (hand / "pyproject.toml").read_text("utf-8")
    (hand / "pyproject.toml").write_text(table.replace('    "wk.workers.CPUWorker",\n', ""))
    assert located(folder) == located(hand)


def test_a_rebound_class_answering_a_name_of_its_own_is_written_one_of(tmp_path: Path) -> None:
    # The string may name the class from outside the project, which may not answer
    # pin_cpu: the strings don't say which workers, the annotation does, one-of.
    own_name = (
        "class CPUWorker(GPUWorker):\n",
        "class CPUWorker(GPUWorker):\n    def pin_cpu(self) -> None:\n        pass\n\n",
    )
    folder = _fixture(tmp_path, {"wk/workers.py": [REBOUND, IMPORT_OS, own_name]})
    written = run_cli(folder, "init")
    assert written.returncode == 0, written.stderr
    text = (folder / "pyproject.toml").read_text("utf-8")
    assert REFUSED not in text, text
    assert _one_of(folder) == ADMITTED, text
