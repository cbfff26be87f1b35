"""The kiln Python module against libkiln (KILN_LIBRARY) and the shared models
(KILN_SHARED_MODELS, else ../shared/models next to the checkout)."""

import os
import pathlib
import threading

import numpy as np
import pytest

import kiln

ROOT = pathlib.Path(__file__).resolve().parents[2]


def shared_model(name):
    env = os.environ.get("KILN_SHARED_MODELS")
    for base in ([pathlib.Path(env)] if env else []) + [ROOT.parent / "shared" / "models",
                                                        ROOT.parent.parent / "shared" / "models"]:
        if (base / name / "model.onnx").exists():
            return base / name
    pytest.skip(f"shared model {name} not found: set KILN_SHARED_MODELS to the shared models "
                "folder (e.g. /work/shared/models)")


def bundle(directory, prefix):
    files = sorted((directory / "test_data_set_0").glob(f"{prefix}_*.pb"),
                   key=lambda p: int(p.stem.split("_")[1]))
    return [kiln.read_tensor(f) for f in files]


def test_version():
    assert kiln.version().count(".") == 2


def test_missing_file_raises_the_clis_message():
    with pytest.raises(kiln.Error, match="model file '/nonexistent/m.onnx' does not exist"):
        kiln.load("/nonexistent/m.onnx")
    with pytest.raises(kiln.Error, match="unknown model format 'caffe'"):
        kiln.load("/nonexistent/m.onnx", format="caffe")
    with pytest.raises(kiln.Error, match="is not a valid ONNX model"):
        kiln.load_bytes(b"garbage", "onnx")


def test_runs_a_shared_model_like_its_reference():
    d = shared_model("kws_tdnn")
    (x,), (want,) = bundle(d, "input"), bundle(d, "output")
    model = kiln.load(d / "model.onnx")
    assert len(model.input_names) == 1 and len(model.output_names) == 1
    runnable = model.optimize()
    (got,) = runnable.run([x])
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    (got,) = runnable.run({runnable.input_names[0]: x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    (typed,) = model.prepare().run([x])
    np.testing.assert_allclose(typed, want, rtol=1e-4, atol=1e-5)
    got[...] = 0  # outputs are the caller's arrays
    prof = runnable.profile([x], runs=2)
    assert prof["total_ms"] > 0 and prof["nodes"] and {"name", "op", "ms"} <= set(prof["nodes"][0])


def test_outputs_into_caller_arrays():
    d = shared_model("kws_tdnn")
    (x,), (want,) = bundle(d, "input"), bundle(d, "output")
    session = kiln.load(d / "model.onnx").optimize().session(1)
    out = [np.full(want.shape, np.nan, np.float32)]
    x_before = x.copy()
    assert session.run([x], out=out) is not None
    np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(x, x_before)  # inputs are read in place, never written
    (plain,) = session.run([x])
    np.testing.assert_array_equal(plain, out[0])
    # A non-contiguous input is copied once; the values are the same.
    xf = np.asfortranarray(x)
    session.run([xf], out=out)
    np.testing.assert_array_equal(plain, out[0])
    with pytest.raises(kiln.Error, match="the buffer given is 3,f32"):
        session.run([x], out=[np.zeros(3, np.float32)])
    with pytest.raises(kiln.Error, match="C-contiguous"):
        session.run([x], out=[np.zeros(2 * want.size, np.float32)[::2].reshape(want.shape)])
    with pytest.raises(kiln.Error, match="has no kiln type"):
        session.run([x], out=[np.zeros(want.shape, np.complex64)])
    with pytest.raises(kiln.Error, match=r"output 0 .* is .*f32.*the buffer given is .*f64"):
        session.run([x], out=[np.zeros(want.shape, np.float64)])


def test_input_facts_and_errors_name_the_input():
    d = shared_model("kws_tdnn")
    (x,) = bundle(d, "input")
    name = kiln.load(d / "model.onnx").input_names[0]
    fact = ",".join(str(n) for n in x.shape) + ",f32"
    model = kiln.load(d / "model.onnx", inputs={name: fact})
    assert model.input_facts == [fact]
    runnable = model.optimize()
    assert runnable.input_facts == [fact]
    with pytest.raises(kiln.Error, match=name):  # wrong shape
        runnable.run([np.zeros(x.shape[:-1] + (x.shape[-1] + 1,), np.float32)])
    with pytest.raises(kiln.Error, match="i32"):  # wrong dtype
        runnable.run([x.astype(np.int32)])
    with pytest.raises(kiln.Error, match=f"no input named 'nope' \\(inputs: {name}\\)"):
        runnable.run({"nope": x})
    with pytest.raises(kiln.Error, match="has no kiln type"):
        runnable.run([x.astype(np.complex64)])
    with pytest.raises(kiln.Error, match="the model has 1 inputs, 2 given"):
        runnable.run([x, x])
    with pytest.raises(kiln.Error, match="-i nope:1,f32: the model has no input named 'nope'"):
        kiln.load(d / "model.onnx", inputs={"nope": "1,f32"})
    # Still runs after the errors; a non-contiguous input is fine.
    xt = np.asfortranarray(x)
    np.testing.assert_allclose(runnable.run([xt])[0], bundle(d, "output")[0], rtol=1e-4,
                               atol=1e-5)


def test_nnef_round_trip_and_bytes(tmp_path):
    d = shared_model("kws_tdnn")
    (x,), (want,) = bundle(d, "input"), bundle(d, "output")
    model = kiln.load_bytes((d / "model.onnx").read_bytes(), "onnx")
    path = tmp_path / "m.nnef.tgz"
    model.save_nnef(path)
    np.testing.assert_allclose(kiln.load(path).optimize().run([x])[0], want, rtol=1e-4, atol=1e-5)
    again = kiln.load_bytes(path.read_bytes(), "nnef").optimize()
    np.testing.assert_allclose(again.run([x])[0], want, rtol=1e-4, atol=1e-5)


def test_sessions_on_two_threads():
    d = shared_model("kws_tdnn")
    (x,), (want,) = bundle(d, "input"), bundle(d, "output")
    runnable = kiln.load(d / "model.onnx").optimize()
    results, errors = [None, None], []

    def work(i):
        try:
            s = runnable.session(threads=1)
            for _ in range(3):
                results[i] = s.run([x])[0]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-5)


def test_silero_named_inputs_and_constant():
    d = shared_model("silero_vad_v5")
    model = kiln.load(d / "model.onnx", inputs={"sr": "i64=16000"})
    inputs = dict(zip(model.input_names, bundle(d, "input")))
    outputs = model.optimize().run(inputs)
    for got, want in zip(outputs, bundle(d, "output")):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    with pytest.raises(kiln.Error, match="missing model inputs: 'state'"):
        model.optimize().run({k: v for k, v in inputs.items() if k != "state"})


def test_streaming_pulse_by_pulse_matches_the_whole_input():
    d = shared_model("tdnn_stream")
    (x,), (want,) = bundle(d, "input"), bundle(d, "output")
    model = kiln.load(d / "model.onnx")
    pulsed = model.pulse(8)
    # What `kiln run --pulse 8` reports for this model: its output lags by 16 frames.
    assert pulsed.pulse == 8 and pulsed.delay(0) == 16
    assert pulsed.input_names == model.input_names and len(pulsed.output_names) == 1
    stream = pulsed.stream_session(threads=1)
    (whole,) = stream.run_whole([x])
    np.testing.assert_allclose(whole, want, rtol=1e-4, atol=1e-5)

    # 8 frames at a time: the outputs, without their first 16 frames, are the whole-input
    # model's (up to the last frames, which need the end of the stream).
    stream.reset()
    assert stream.pulses == 0
    frames = x.shape[2]
    pieces = []
    for p in range(frames // 8):
        (y,) = stream.push({pulsed.input_names[0]: x[:, :, 8 * p:8 * p + 8]})
        assert y.shape == (1, want.shape[1], 8)
        pieces.append(y)
    assert stream.pulses == frames // 8
    got = np.concatenate(pieces, axis=2)[:, :, 16:]
    assert got.shape[2] == frames // 8 * 8 - 16
    np.testing.assert_allclose(got, want[:, :, :got.shape[2]], rtol=1e-4, atol=1e-5)

    with pytest.raises(kiln.Error, match=r"stream: input 0 must carry 8 frames along axis 2 per "
                                         r"push, got \[.*7\]"):
        stream.push([x[:, :, :7]])
    with pytest.raises(kiln.Error, match="the model has no input named 'nope'"):
        stream.push({"nope": x[:, :, :8]})
    with pytest.raises(kiln.Error, match="stream length -1 is negative"):
        stream.set_stream_length(-1)
    with pytest.raises(kiln.Error, match="output 3 out of range"):
        pulsed.delay(3)
    with pytest.raises(kiln.Error, match="--pulse 'x': expected a positive frame count"):
        model.pulse("x")
