"""ctypes bindings of libkiln's C API (include/kiln/kiln.h). Internal: use the kiln module."""

import ctypes
import ctypes.util
import os

c_size_p = ctypes.POINTER(ctypes.c_size_t)
c_char_pp = ctypes.POINTER(ctypes.c_char_p)


class Error(Exception):
    """A kiln error: the message is the one the kiln command prints."""


def _candidates():
    env = os.environ.get("KILN_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # Next to the package, then the library directory of the prefix the package is installed in
    # (PREFIX/lib/python3/dist-packages/kiln -> PREFIX/lib: `cmake --install`, python3-kiln),
    # then the system's.
    prefix_lib = os.path.normpath(os.path.join(here, "..", "..", ".."))
    for directory in (here, prefix_lib):
        for name in ("libkiln.so.0.1", "libkiln.so"):
            yield os.path.join(directory, name)
    found = ctypes.util.find_library("kiln")
    if found:
        yield found
    yield "libkiln.so.0.1"


def _load():
    errors = []
    for path in _candidates():
        try:
            # "-": the running program itself (a program linked with libkiln.a embedding Python).
            return ctypes.CDLL(None if path == "-" else path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("kiln: cannot load libkiln (set KILN_LIBRARY to libkiln.so): "
                      + "; ".join(errors))


lib = _load()

_handle = ctypes.c_void_p
_signatures = {
    "kiln_last_error": (ctypes.c_char_p, []),
    "kiln_version": (ctypes.c_char_p, []),
    "kiln_datum_type_name": (ctypes.c_char_p, [ctypes.c_int]),
    "kiln_datum_type_size": (ctypes.c_size_t, [ctypes.c_int]),
    "kiln_model_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.POINTER(_handle)]),
    "kiln_model_load_memory": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                              ctypes.POINTER(_handle)]),
    "kiln_model_destroy": (None, [_handle]),
    "kiln_model_num_inputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_model_num_outputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_model_input_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_model_output_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_model_input_fact": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_model_set_input_fact": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "kiln_model_save_nnef": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "kiln_model_optimize": (ctypes.c_int, [_handle, ctypes.POINTER(_handle)]),
    "kiln_model_prepare": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.POINTER(_handle)]),
    "kiln_runnable_destroy": (None, [_handle]),
    "kiln_runnable_num_inputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_runnable_num_outputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_runnable_input_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_runnable_output_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_runnable_input_fact": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_runnable_output_fact": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_session_create": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.POINTER(_handle)]),
    "kiln_session_destroy": (None, [_handle]),
    "kiln_session_run": (ctypes.c_int, [_handle, ctypes.POINTER(_handle), ctypes.c_size_t,
                                        ctypes.POINTER(_handle), ctypes.c_size_t]),
    "kiln_session_run_into": (ctypes.c_int, [_handle, ctypes.POINTER(_handle), ctypes.c_size_t,
                                             ctypes.POINTER(_handle), ctypes.c_size_t]),
    "kiln_session_profile": (ctypes.c_int, [_handle, ctypes.POINTER(_handle), ctypes.c_size_t,
                                            ctypes.c_int, c_char_pp]),
    "kiln_model_pulse": (ctypes.c_int, [_handle, ctypes.c_char_p, ctypes.POINTER(_handle)]),
    "kiln_pulsed_runnable_destroy": (None, [_handle]),
    "kiln_pulsed_runnable_pulse": (ctypes.c_int, [_handle, ctypes.POINTER(ctypes.c_int64)]),
    "kiln_pulsed_runnable_delay": (ctypes.c_int, [_handle, ctypes.c_size_t,
                                                  ctypes.POINTER(ctypes.c_int64)]),
    "kiln_pulsed_runnable_num_inputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_pulsed_runnable_num_outputs": (ctypes.c_int, [_handle, c_size_p]),
    "kiln_pulsed_runnable_input_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_pulsed_runnable_output_name": (ctypes.c_int, [_handle, ctypes.c_size_t, c_char_pp]),
    "kiln_stream_session_create": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.POINTER(_handle)]),
    "kiln_stream_session_destroy": (None, [_handle]),
    "kiln_stream_session_push": (ctypes.c_int, [_handle, ctypes.POINTER(_handle), ctypes.c_size_t,
                                                ctypes.POINTER(_handle), ctypes.c_size_t]),
    "kiln_stream_session_run_whole": (ctypes.c_int, [_handle, ctypes.POINTER(_handle),
                                                     ctypes.c_size_t, ctypes.POINTER(_handle),
                                                     ctypes.c_size_t]),
    "kiln_stream_session_reset": (ctypes.c_int, [_handle]),
    "kiln_stream_session_set_stream_length": (ctypes.c_int, [_handle, ctypes.c_int64]),
    "kiln_stream_session_pulses": (ctypes.c_int, [_handle, ctypes.POINTER(ctypes.c_int64)]),
    "kiln_tensor_create": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                          ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                          ctypes.POINTER(_handle)]),
    "kiln_tensor_wrap": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                        ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.POINTER(_handle)]),
    "kiln_tensor_read": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_handle)]),
    "kiln_tensor_destroy": (None, [_handle]),
    "kiln_tensor_datum_type": (ctypes.c_int, [_handle, ctypes.POINTER(ctypes.c_int)]),
    "kiln_tensor_shape": (ctypes.c_int, [_handle, ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                                         c_size_p]),
    "kiln_tensor_data": (ctypes.c_int, [_handle, ctypes.POINTER(ctypes.c_void_p), c_size_p]),
}
for _name, (_res, _args) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def check(status):
    """Raises kiln.Error with the library's message when status is not KILN_OK."""
    if status != 0:
        raise Error(lib.kiln_last_error().decode("utf-8", "replace"))
