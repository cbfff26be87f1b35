"""kiln from Python: load a model, optimize it, run it on numpy arrays.

    import kiln, numpy as np
    model = kiln.load("mobilenet_v2.onnx", inputs={"input": "1,3,224,224,f32"}).optimize()
    outputs = model.run({"input": np.zeros((1, 3, 224, 224), np.float32)})
    print(model.output_names, outputs[0].shape)

Built on libkiln's C API through ctypes: no compiler needed. Errors raise kiln.Error with the
message the kiln command prints. KILN_LIBRARY names the libkiln.so to use (else the one installed
next to the package or on the system).
"""

import ctypes
import json

import numpy as np

from ._lib import Error, check, lib

__all__ = ["Error", "Model", "PulsedRunnable", "Runnable", "Session", "StreamSession", "load",
           "load_bytes", "read_tensor", "version"]

_DTYPES = {1: np.float32, 2: np.float64, 3: np.float16, 4: np.int8, 5: np.int16, 6: np.int32,
           7: np.int64, 8: np.uint8, 9: np.uint16, 10: np.uint32, 11: np.uint64, 12: np.bool_}
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}


def version():
    """libkiln's version, e.g. "0.1.0"."""
    return lib.kiln_version().decode()


def _names(handle, count_fn, name_fn):
    n = ctypes.c_size_t()
    check(count_fn(handle, ctypes.byref(n)))
    out = []
    for i in range(n.value):
        s = ctypes.c_char_p()
        check(name_fn(handle, i, ctypes.byref(s)))
        out.append(s.value.decode())
    return out


def _code_of(a, what):
    """The kiln type code of a numpy array's dtype."""
    code = _CODES.get(a.dtype)
    if code is None:
        raise Error(f"{what}: numpy dtype {a.dtype} has no kiln type "
                    "(float16/32/64, int8-64, uint8-64, bool)")
    return code


class _Tensor:
    """Owns a kiln_tensor handle."""

    def __init__(self, handle):
        self.handle = handle
        self.array = None  # the numpy array whose memory a wrapped tensor uses

    def __del__(self):
        if self.handle:
            lib.kiln_tensor_destroy(self.handle)
            self.handle = None

    @classmethod
    def from_numpy(cls, array, what):
        """A kiln tensor over the array's memory (no copy when it is C-contiguous and aligned;
        kiln never writes its inputs); the tensor keeps the array alive."""
        a = np.asarray(array)
        code = _code_of(a, what)
        if not (a.flags.c_contiguous and a.flags.aligned):
            a = np.array(a, order="C")  # (ascontiguousarray would make a scalar 1-d)
        return cls._wrap(a, code)

    @classmethod
    def _wrap(cls, a, code):
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        handle = ctypes.c_void_p()
        check(lib.kiln_tensor_wrap(code, shape, a.ndim, a.ctypes.data_as(ctypes.c_void_p),
                                   a.nbytes, ctypes.byref(handle)))
        tensor = cls(handle)
        tensor.array = a
        return tensor

    @classmethod
    def output_of(cls, array, what):
        """A kiln tensor over an output array the session writes into (no copy)."""
        if not isinstance(array, np.ndarray):
            raise Error(f"{what}: out must hold numpy arrays, got {type(array).__name__}")
        code = _code_of(array, what)
        if not (array.flags.c_contiguous and array.flags.aligned and array.flags.writeable):
            raise Error(f"{what}: the array must be C-contiguous, aligned and writeable")
        return cls._wrap(array, code)

    def to_numpy(self):
        code = ctypes.c_int()
        check(lib.kiln_tensor_datum_type(self.handle, ctypes.byref(code)))
        dims = ctypes.POINTER(ctypes.c_int64)()
        rank = ctypes.c_size_t()
        check(lib.kiln_tensor_shape(self.handle, ctypes.byref(dims), ctypes.byref(rank)))
        data = ctypes.c_void_p()
        nbytes = ctypes.c_size_t()
        check(lib.kiln_tensor_data(self.handle, ctypes.byref(data), ctypes.byref(nbytes)))
        shape = tuple(dims[i] for i in range(rank.value))
        out = np.empty(shape, dtype=_DTYPES[code.value])
        if nbytes.value:
            assert out.nbytes == nbytes.value
            ctypes.memmove(out.ctypes.data, data.value, nbytes.value)
        return out


def read_tensor(path):
    """A .npy or .pb (ONNX TensorProto) file as a numpy array."""
    handle = ctypes.c_void_p()
    check(lib.kiln_tensor_read(str(path).encode(), ctypes.byref(handle)))
    return _Tensor(handle).to_numpy()


class Model:
    """A model as loaded: set input facts, then optimize() (or prepare()) it."""

    def __init__(self, handle):
        self._handle = handle

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.kiln_model_destroy(self._handle)
            self._handle = None

    @property
    def input_names(self):
        return _names(self._handle, lib.kiln_model_num_inputs, lib.kiln_model_input_name)

    @property
    def output_names(self):
        return _names(self._handle, lib.kiln_model_num_outputs, lib.kiln_model_output_name)

    @property
    def input_facts(self):
        return _names(self._handle, lib.kiln_model_num_inputs, lib.kiln_model_input_fact)

    def set_input_fact(self, spec):
        """The CLI's -i syntax: "name:1,3,224,224,f32", "sr:i64=16000", or by position."""
        check(lib.kiln_model_set_input_fact(self._handle, spec.encode()))
        return self

    def save_nnef(self, path):
        """Writes the decluttered model as NNEF (.tgz/.tar or a directory), as kiln convert."""
        check(lib.kiln_model_save_nnef(self._handle, str(path).encode()))

    def optimize(self):
        """Declutters, optimizes and plans: a Runnable (this model is unchanged)."""
        return self.prepare(optimize=True)

    def prepare(self, optimize=False):
        """A Runnable of the typed (unoptimized) model, or optimized."""
        handle = ctypes.c_void_p()
        check(lib.kiln_model_prepare(self._handle, 1 if optimize else 0, ctypes.byref(handle)))
        return Runnable(handle)

    def pulse(self, pulse):
        """The streaming model, as kiln run --pulse: pulse is 8 (frames per push along the only
        symbol of the input facts, e.g. "1,40,S,f32") or "S=8". A PulsedRunnable."""
        handle = ctypes.c_void_p()
        check(lib.kiln_model_pulse(self._handle, str(pulse).encode(), ctypes.byref(handle)))
        return PulsedRunnable(handle)


def _apply_facts(model, inputs):
    if inputs is None:
        return model
    items = inputs.items() if isinstance(inputs, dict) else ((None, f) for f in inputs)
    for name, fact in items:
        model.set_input_fact(fact if name is None else f"{name}:{fact}")
    return model


def load(path, inputs=None, format=None):
    """Loads a model file (.onnx, .pb, .nnef.tgz or an NNEF folder). `inputs`: facts by name
    ({"x": "1,S,40,f32"}) or in order (["1,3,224,224,f32"]); `format`: onnx, tf or nnef."""
    handle = ctypes.c_void_p()
    check(lib.kiln_model_load(str(path).encode(), format.encode() if format else None,
                              ctypes.byref(handle)))
    return _apply_facts(Model(handle), inputs)


def load_bytes(data, format, inputs=None):
    """Loads a model from bytes (a .onnx file, a GraphDef, an NNEF .tgz/.tar)."""
    data = bytes(data)
    handle = ctypes.c_void_p()
    check(lib.kiln_model_load_memory(data, len(data), format.encode(), ctypes.byref(handle)))
    return _apply_facts(Model(handle), inputs)


class Runnable:
    """An optimized model: immutable, shared by its sessions (one per thread)."""

    def __init__(self, handle):
        self._handle = handle
        self._session = None

    def __del__(self):
        self._session = None
        if getattr(self, "_handle", None):
            lib.kiln_runnable_destroy(self._handle)
            self._handle = None

    @property
    def input_names(self):
        return _names(self._handle, lib.kiln_runnable_num_inputs, lib.kiln_runnable_input_name)

    @property
    def output_names(self):
        return _names(self._handle, lib.kiln_runnable_num_outputs, lib.kiln_runnable_output_name)

    @property
    def input_facts(self):
        return _names(self._handle, lib.kiln_runnable_num_inputs, lib.kiln_runnable_input_fact)

    @property
    def output_facts(self):
        return _names(self._handle, lib.kiln_runnable_num_outputs, lib.kiln_runnable_output_fact)

    def session(self, threads=0):
        """A new Session (threads <= 0: the physical cores)."""
        return Session(self, threads)

    def _default(self):
        if self._session is None:
            self._session = Session(self, 0)
        return self._session

    def run(self, inputs, out=None):
        """Runs on a dict {name: array} or a list in input order; a list of output arrays (or
        into `out`, as Session.run). Uses one session kept by this Runnable: from several
        threads, use session() each."""
        return self._default().run(inputs, out)

    def profile(self, inputs, runs=10):
        """Per-node mean times: {"total_ms": ..., "nodes": [{"name", "op", "ms"}, ...]}."""
        return self._default().profile(inputs, runs)


def _input_list(names, inputs):
    """Inputs given as a dict {name: array} or a list in input order: kiln tensors and the C
    array of their handles."""
    if isinstance(inputs, dict):
        unknown = [k for k in inputs if k not in names]
        if unknown:
            raise Error(f"the model has no input named '{unknown[0]}' "
                        f"(inputs: {' '.join(names)})")
        missing = [n for n in names if n not in inputs]
        if missing:
            raise Error("missing model inputs: " + ", ".join(f"'{m}'" for m in missing))
        inputs = [inputs[n] for n in names]
    labels = names + [f"#{i}" for i in range(len(names), len(inputs))]
    tensors = [_Tensor.from_numpy(a, f"input '{labels[i]}'") for i, a in enumerate(inputs)]
    array = (ctypes.c_void_p * max(len(tensors), 1))(*[t.handle for t in tensors])
    return tensors, array


def _run(fn, handle, names, num_outputs, inputs):
    tensors, array = _input_list(names, inputs)
    outs = (ctypes.c_void_p * max(num_outputs, 1))()
    check(fn(handle, array, len(tensors), outs, num_outputs))
    return [_Tensor(ctypes.c_void_p(outs[i])).to_numpy() for i in range(num_outputs)]


class PulsedRunnable:
    """A streaming model (Model.pulse): immutable, shared by its StreamSessions."""

    def __init__(self, handle):
        self._handle = handle

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.kiln_pulsed_runnable_destroy(self._handle)
            self._handle = None

    @property
    def pulse(self):
        """Frames of each streaming input per push."""
        out = ctypes.c_int64()
        check(lib.kiln_pulsed_runnable_pulse(self._handle, ctypes.byref(out)))
        return out.value

    def delay(self, output=0):
        """Frames output `output` lags the whole-input model by."""
        out = ctypes.c_int64()
        check(lib.kiln_pulsed_runnable_delay(self._handle, int(output), ctypes.byref(out)))
        return out.value

    @property
    def input_names(self):
        return _names(self._handle, lib.kiln_pulsed_runnable_num_inputs,
                      lib.kiln_pulsed_runnable_input_name)

    @property
    def output_names(self):
        return _names(self._handle, lib.kiln_pulsed_runnable_num_outputs,
                      lib.kiln_pulsed_runnable_output_name)

    def stream_session(self, threads=0):
        """A new StreamSession (threads <= 0: the physical cores)."""
        return StreamSession(self, threads)


class StreamSession:
    """A stream: push() `pulse` frames of each streaming input at a time, get as many frames of
    each output (delay(i) frames late); or run_whole() a whole input. One thread at a time."""

    def __init__(self, pulsed, threads=0):
        self._pulsed = pulsed  # keeps the pulsed runnable alive
        handle = ctypes.c_void_p()
        check(lib.kiln_stream_session_create(pulsed._handle, int(threads), ctypes.byref(handle)))
        self._handle = handle
        self._names = pulsed.input_names
        self._num_outputs = len(pulsed.output_names)

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.kiln_stream_session_destroy(self._handle)
            self._handle = None

    def push(self, inputs):
        """One pulse of each input (dict {name: array} or a list): a list of output arrays."""
        return _run(lib.kiln_stream_session_push, self._handle, self._names, self._num_outputs,
                    inputs)

    def run_whole(self, inputs):
        """Resets, pushes the whole inputs pulse by pulse: the whole-input model's outputs."""
        return _run(lib.kiln_stream_session_run_whole, self._handle, self._names,
                    self._num_outputs, inputs)

    def reset(self):
        """Back to the stream start."""
        check(lib.kiln_stream_session_reset(self._handle))

    def set_stream_length(self, frames):
        """The stream's length in frames once known (the padding at its end needs it)."""
        check(lib.kiln_stream_session_set_stream_length(self._handle, int(frames)))

    @property
    def pulses(self):
        """Pushes since the start."""
        out = ctypes.c_int64()
        check(lib.kiln_stream_session_pulses(self._handle, ctypes.byref(out)))
        return out.value


class Session:
    """One running instance of a Runnable; use it from one thread at a time."""

    def __init__(self, runnable, threads=0):
        self._runnable = runnable  # keeps the runnable alive
        handle = ctypes.c_void_p()
        check(lib.kiln_session_create(runnable._handle, int(threads), ctypes.byref(handle)))
        self._handle = handle
        self._names = runnable.input_names
        self._num_outputs = len(runnable.output_names)

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.kiln_session_destroy(self._handle)
            self._handle = None

    def _inputs(self, inputs):
        return _input_list(self._names, inputs)

    def run(self, inputs, out=None):
        """Runs on a dict {name: array} or a list in input order; a list of output arrays.
        With out (one array per output, of its dtype and shape, C-contiguous), the outputs are
        computed into those arrays, with no copy when the model allows, and out is returned."""
        if out is None:
            return _run(lib.kiln_session_run, self._handle, self._names, self._num_outputs,
                        inputs)
        out = list(out)
        tensors, array = self._inputs(inputs)
        targets = [_Tensor.output_of(a, f"out[{i}]") for i, a in enumerate(out)]
        handles = (ctypes.c_void_p * max(len(targets), 1))(*[t.handle for t in targets])
        check(lib.kiln_session_run_into(self._handle, array, len(tensors), handles,
                                        len(targets)))
        return out

    def profile(self, inputs, runs=10):
        """Per-node mean times: {"total_ms": ..., "nodes": [{"name", "op", "ms"}, ...]}."""
        tensors, array = self._inputs(inputs)
        text = ctypes.c_char_p()
        check(lib.kiln_session_profile(self._handle, array, len(tensors), int(runs),
                                       ctypes.byref(text)))
        return json.loads(text.value.decode())
