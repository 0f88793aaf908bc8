"""The model file: a trained network as a ``.npz`` archive that numpy alone reads.

A model file holds a plain MLP (a shared ReLU trunk, an action head over the 500 ids and a
value head):

* ``trunk_w{i}``, ``trunk_b{i}``: the hidden layers, ``x @ w + b`` then ReLU;
* ``pi_w``, ``pi_b``: the action head; ``v_w``, ``v_b``: the value head;
* ``meta``: a JSON string (``format``, ``obs_size``, ``num_actions``,
  ``hidden``, and what the run that made it recorded).

A network reads the first ``obs_size`` entries of an observation, so a model
keeps working when the observation grows at its end. Playing one needs numpy only
(:mod:`agents.network`); :mod:`training.net` builds the torch network, writes model files
and loads them into torch.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import zipfile
from pathlib import Path

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.jsonfile import loads_bounded, open_regular, read_npy
from canasta_env.observation import OBS_SIZE
from canasta_env.safe_write import atomic_write

FORMAT = "canasta-mlp-1"

#: The most bytes a model file may unpack to, all members together (the shipped
#: models unpack to about 2.4 MB; a 768x384 network to about 4.2 MB).
MAX_MODEL_BYTES = 64 * 2**20
#: The most bytes of the ``meta`` member (the shipped models' are under 2 kB).
MAX_META_BYTES = 2**20
#: The most hidden layers a model file may declare.
MAX_LAYERS = 64

_MEMBER = re.compile(r"(meta|pi_[wb]|v_[wb]|trunk_[wb](0|[1-9][0-9]{0,2}))\.npy")
_WEIGHT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def file_digest(path: str | os.PathLike) -> str:
    """The sha256 of a model file's bytes: how the exploit reports, the gauntlets and the
    leaderboard tell one network from another under the same name."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_model(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict) -> Path:
    """Write ``arrays`` (the weights, named as the format names them) and ``meta`` as a
    model file at ``path``: compressed, atomically and never through a link
    (:func:`canasta_env.safe_write.atomic_write`)."""
    path = Path(path)
    members = {**arrays, "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **members)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, buffer.getvalue(), "model file")
    return path


def _member_shapes(meta: dict) -> dict[str, tuple[int, ...]]:
    """The ``.npy`` members of a model of ``meta``, each with the shape it must have."""
    shapes: dict[str, tuple[int, ...]] = {}
    size = meta["obs_size"]
    for i, width in enumerate(meta["hidden"]):
        shapes[f"trunk_w{i}.npy"], shapes[f"trunk_b{i}.npy"] = (size, width), (width,)
        size = width
    shapes["pi_w.npy"], shapes["pi_b.npy"] = (size, meta["num_actions"]), (meta["num_actions"],)
    shapes["v_w.npy"], shapes["v_b.npy"] = (size, 1), (1,)
    return shapes


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_fits_table(obs_size: int, num_actions: int, what: str) -> None:
    """``ValueError`` ("WHAT: ...") unless a network of these sizes can play at every table:
    it reads the first ``obs_size`` entries of an observation of :data:`OBS_SIZE` and scores
    the first ``num_actions`` of the :data:`NUM_ACTIONS` action ids (a network of an older,
    shorter layout plays its prefix), so neither may be larger than the table's."""
    if obs_size > OBS_SIZE:
        raise ValueError(
            f"{what}: obs_size {obs_size} does not fit the table's observation of "
            f"{OBS_SIZE} entries"
        )
    if num_actions > NUM_ACTIONS:
        raise ValueError(
            f"{what}: num_actions {num_actions} does not fit the table's {NUM_ACTIONS} action ids"
        )


class ModelFile:
    """A model file read with numpy: ``actor`` layers, ``value`` head, ``meta``.

    A model file may come from elsewhere, so it is read as data: only a regular file
    (:func:`canasta_env.jsonfile.open_regular`); the archive's members are checked
    before anything is unpacked (only the names the format uses; each member and all
    together at most :data:`MAX_MODEL_BYTES` unpacked; every ``.npy`` header's dtype
    and shape those that ``meta`` implies), ``meta`` is parsed with
    :func:`canasta_env.jsonfile.loads_bounded` and must hold the keys the format needs,
    arrays are read with ``allow_pickle=False``, every weight must be finite, and the
    network must fit the table (:func:`check_fits_table`). Every problem raises one
    ``ValueError`` naming the file and the problem.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        arrays = _read_model(self.path)
        self.meta = arrays.pop("meta")
        check_fits_table(self.meta["obs_size"], self.meta["num_actions"], f"model file {path}")
        count = len(self.meta["hidden"])
        trunk = [(arrays[f"trunk_w{i}"], arrays[f"trunk_b{i}"]) for i in range(count)]
        self.actor = trunk + [(arrays["pi_w"], arrays["pi_b"])]
        self.trunk = trunk
        self.value_head = (arrays["v_w"], arrays["v_b"])

    @property
    def obs_size(self) -> int:
        return int(self.meta["obs_size"])


def _read_model(path: Path) -> dict:
    """The arrays of the model file at ``path`` (``meta`` parsed), checked as the
    :class:`ModelFile` doc says; ``ValueError`` ("model file PATH: ...") on any problem."""
    what = f"model file {path}"
    with open_regular(path, what) as file:
        size = os.fstat(file.fileno()).st_size
        if size > MAX_MODEL_BYTES:
            raise ValueError(f"{what}: {size:,} bytes: larger than {MAX_MODEL_BYTES:,}")
        try:
            archive = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise ValueError(f"{what}: not a model file (not a zip archive: {error})") from None
        try:
            with archive:
                return _read_members(archive, what)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as error:
            raise ValueError(f"{what}: not a model file (corrupt archive: {error})") from None


def _read_members(archive: zipfile.ZipFile, what: str) -> dict:
    infos = archive.infolist()
    names = [info.filename for info in infos]
    if len(infos) > 2 * MAX_LAYERS + 5:
        raise ValueError(f"{what}: not a model file ({len(infos)} members)")
    total = 0
    for info in infos:
        if not _MEMBER.fullmatch(info.filename):
            raise ValueError(
                f"{what}: not a model file (member {info.filename[:80]!r} is none of the "
                "format's: meta.npy, trunk_w<i>.npy, trunk_b<i>.npy, pi_w.npy, pi_b.npy, "
                "v_w.npy, v_b.npy)"
            )
        if names.count(info.filename) > 1:
            raise ValueError(f"{what}: member {info.filename!r} appears more than once")
        if info.flag_bits & 0x1:
            raise ValueError(f"{what}: member {info.filename!r} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(
                f"{what}: member {info.filename!r} uses compression method "
                f"{info.compress_type} (model files use stored or deflated members)"
            )
        if info.file_size > MAX_MODEL_BYTES:
            raise ValueError(
                f"{what}: member {info.filename!r} unpacks to {info.file_size:,} bytes: "
                f"larger than {MAX_MODEL_BYTES:,}"
            )
        total += info.file_size
    if total > MAX_MODEL_BYTES:
        raise ValueError(
            f"{what}: its members unpack to {total:,} bytes: larger than {MAX_MODEL_BYTES:,}"
        )
    if "meta.npy" not in names:
        raise ValueError(f"{what}: not a model file (no meta entry)")
    raw = _read_array(archive, archive.getinfo("meta.npy"), what, None)
    meta = _parse_meta(raw, what)
    shapes = _member_shapes(meta)
    missing = [name for name in shapes if name not in names]
    if missing:
        raise ValueError(
            f"{what}: member {missing[0]!r} is missing (its meta declares "
            f"{len(meta['hidden'])} hidden layers)"
        )
    extra = [name for name in names if name not in shapes and name != "meta.npy"]
    if extra:
        raise ValueError(
            f"{what}: member {extra[0]!r} is not part of a network with "
            f"{len(meta['hidden'])} hidden layers"
        )
    arrays: dict = {"meta": meta}
    for name, shape in shapes.items():
        arrays[name.removesuffix(".npy")] = _read_array(archive, archive.getinfo(name), what, shape)
    return arrays


def _read_array(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, what: str, shape: tuple[int, ...] | None
) -> np.ndarray:
    """The array of member ``info``, its header checked first: a weight array of
    ``shape`` (float32 or float64), or (``shape`` None) the meta bytes (uint8, 1-D)."""
    name = info.filename

    def check(claimed: tuple[int, ...], dtype: np.dtype) -> None:
        if shape is None:
            if dtype != np.dtype(np.uint8) or len(claimed) != 1:
                raise ValueError(
                    f"{what}: member {name!r} claims dtype {dtype} and shape {claimed} "
                    "(the meta entry is 1-D uint8 bytes)"
                )
            if math.prod(claimed) > MAX_META_BYTES:
                raise ValueError(
                    f"{what}: member {name!r} claims {math.prod(claimed):,} bytes: larger than "
                    f"{MAX_META_BYTES:,}"
                )
        else:
            if dtype not in _WEIGHT_DTYPES:
                raise ValueError(
                    f"{what}: member {name!r} claims dtype {dtype} (weights are float32 or float64)"
                )
            if tuple(claimed) != shape:
                raise ValueError(
                    f"{what}: member {name!r} claims shape {claimed}, but its meta "
                    f"(obs_size, hidden, num_actions) needs {shape}"
                )

    array = read_npy(archive, info, what, check)
    if shape is not None and not np.isfinite(array).all():
        bad = int(np.size(array) - np.isfinite(array).sum())
        raise ValueError(f"{what}: member {name!r} holds {bad:,} NaN or infinite weights")
    return array


def _parse_meta(raw: np.ndarray, what: str) -> dict:
    """The model's meta: a JSON object with the keys and types the format needs."""
    meta = loads_bounded(raw.tobytes(), what=f"{what}: meta", max_bytes=MAX_META_BYTES)
    if not isinstance(meta, dict):
        raise ValueError(f"{what}: meta is a JSON {type(meta).__name__}, not an object")
    if meta.get("format") != FORMAT:
        raise ValueError(f"{what}: unknown model format {str(meta.get('format'))[:80]!r}")
    for key in ("obs_size", "num_actions"):
        if not _positive_int(meta.get(key)):
            raise ValueError(
                f"{what}: meta {key} is {str(meta.get(key))[:80]!r}, not a positive integer"
            )
    hidden = meta.get("hidden")
    if not (isinstance(hidden, list) and all(_positive_int(w) for w in hidden)):
        raise ValueError(
            f"{what}: meta hidden is {str(hidden)[:80]!r}, not a list of positive integers"
        )
    if len(hidden) > MAX_LAYERS:
        raise ValueError(
            f"{what}: meta declares {len(hidden)} hidden layers (at most {MAX_LAYERS})"
        )
    return meta
