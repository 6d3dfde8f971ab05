"""tigris.Session: the host runtime, run after run, against `tigris run` and references."""

import numpy as np
import pytest
from conftest import error_message, run_cli, shared_model

import tigris


@pytest.fixture(scope="module")
def demo_plan(demo_dir):
    plan = tigris.compile(demo_dir / "demo.onnx", fast="48K", name="demo.onnx")
    plan.save(demo_dir / "demo48.tgrs")
    return plan


def cli_run(plan_path, inputs, cwd, out="out.npz", flags=()):
    """`tigris run` on NAME=FILE.npy inputs; its outputs by name."""
    args = ["run", plan_path, "-o", out, *flags]
    for i, (name, array) in enumerate(inputs.items()):
        np.save(cwd / f"in{i}.npy", array)
        args += ["-i", f"{name}=in{i}.npy"]
    r = run_cli(args, cwd)
    assert r.status == 0, r.err
    with np.load(cwd / out) as z:
        return {k: z[k] for k in z.files}, r


def random_inputs(session, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for t in session.inputs:
        if t.dtype.kind == "f":
            out[t.name] = rng.standard_normal(t.shape).astype(t.dtype)
        else:
            info = np.iinfo(t.dtype)
            out[t.name] = rng.integers(info.min, info.max, size=t.shape, endpoint=True).astype(t.dtype)
    return out


def test_inputs_outputs_and_a_run_against_the_reference(demo_dir, demo_plan):
    with tigris.Session(demo_plan) as s:
        assert s.inputs == [tigris.TensorInfo("image", np.dtype("float32"), (1, 3, 64, 64))]
        assert s.outputs == [tigris.TensorInfo("logits", np.dtype("float32"), (1, 10))]
        assert s.kernels == "float32"
        x = np.load(demo_dir / "demo_input.npy")
        y = s.run({"image": x})
        assert list(y) == ["logits"] and y["logits"].dtype == np.float32 and y["logits"].shape == (1, 10)
        # The demo's own reference forward pass (tools/demo-model/reference.cpp).
        expected = np.load(demo_dir / "demo_expected.npy")
        assert np.max(np.abs(y["logits"] - expected)) <= 1e-4 * np.max(np.abs(expected))
        # The same bytes as `tigris run`, whichever way the inputs are given.
        cli, _ = cli_run("demo48.tgrs", {"image": x}, demo_dir)
        assert y["logits"].tobytes() == cli["logits"].tobytes()
        assert s.run(x)["logits"].tobytes() == cli["logits"].tobytes()
        assert s.run([x])["logits"].tobytes() == cli["logits"].tobytes()
        assert s.run(image=x)["logits"].tobytes() == cli["logits"].tobytes()


def test_memory_as_tigris_run_reports_it(demo_dir, demo_plan):
    s = tigris.Session(demo_plan)
    assert s.memory.fast_peak_bytes is None and s.memory.runs == 0
    x = np.load(demo_dir / "demo_input.npy")
    s.run(x)
    _, r = cli_run("demo48.tgrs", {"image": x}, demo_dir, "mem.npz", ["--json"])
    import json

    run_json = json.loads(r.out)
    m = s.memory.to_dict()
    assert m.pop("runs") == 1
    assert m == run_json["memory"]
    assert s.memory.fast_peak_bytes <= s.memory.fast_capacity_bytes == s.memory.fast_required_bytes
    assert s.stats.to_dict() == run_json["stats"]
    s.close()
    assert s.closed


def test_arena_sizes_as_tigris_run_takes_them(demo_dir, demo_plan):
    x = np.load(demo_dir / "demo_input.npy")
    np.save(demo_dir / "x.npy", x)
    small = tigris.Session(demo_plan, fast=1000)
    with pytest.raises(tigris.Error) as e:
        small.run(x)
    cli = run_cli(["run", "demo48.tgrs", "-i", "x.npy", "-o", "small.npy", "--fast", "1000"], demo_dir)
    assert (e.value.exit_status, str(e.value)) == (cli.status, error_message(cli))
    with tigris.Session(demo_plan, fast="256K", slow="2M") as roomy:
        y = roomy.run(x)
        assert (roomy.memory.fast_capacity_bytes, roomy.memory.slow_capacity_bytes) == (256 * 1024, 2 << 20)
    with tigris.Session(demo_plan) as exact:
        assert y["logits"].tobytes() == exact.run(x)["logits"].tobytes()
    with pytest.raises(tigris.Error, match="fast must be between 0 and 4294967295 bytes") as e:
        tigris.Session(demo_plan, fast=-1)
    assert e.value.exit_status == 2


def test_stored_order_takes_the_plans_axes(demo_dir, demo_plan):
    x = np.load(demo_dir / "demo_input.npy")
    with tigris.Session(demo_plan, stored_order=True) as s:
        assert s.inputs[0].shape == (1, 64, 64, 3)
        y = s.run(np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
    with tigris.Session(demo_plan) as s:
        assert y["logits"].tobytes() == s.run(x)["logits"].tobytes()


def test_trace_events_and_counters(demo_dir, demo_plan):
    x = np.load(demo_dir / "demo_input.npy")
    with tigris.Session(demo_plan) as s:
        y, events, counters = s.trace(x)
        assert y["logits"].tobytes() == s.run(x)["logits"].tobytes()
    assert counters.mismatches == []
    kinds = {e["kind"] for e in events}
    assert {"stage_begin", "stage_end", "alloc", "op"} <= kinds
    loads = sum(e["bytes"] for e in events if e["kind"] == "load")
    spills = sum(e["bytes"] for e in events if e["kind"] == "spill")
    assert (loads, spills) == (counters.loads_bytes, counters.spills_bytes)
    assert counters.fast_peak == max(e["fast_used"] for e in events) <= 48 * 1024
    # One stage_begin per stage or chain (a chain's head), in plan order.
    stages = [e["stage"] for e in events if e["kind"] == "stage_begin"]
    assert stages[0] == 0 and stages == sorted(set(stages)) and stages[-1] < demo_plan.summary.fast.stages
    assert all(isinstance(e["text"], str) and e["text"] for e in events if e["kind"] != "stage_begin")


def test_closed_session_refuses_to_run(demo_dir, demo_plan):
    with tigris.Session(demo_plan) as s:
        pass
    with pytest.raises(tigris.Error, match="the session is closed"):
        s.run(np.zeros((1, 3, 64, 64), np.float32))


def test_dtype_and_shape_mismatches_are_refused_with_the_cli_message(demo_dir, demo_plan):
    s = tigris.Session(demo_plan)
    wrong = {
        "dtype": np.zeros((1, 3, 64, 64), np.float64),
        "shape": np.zeros((1, 64, 64, 3), np.float32),
        "int": np.zeros((1, 3, 64, 64), np.int8),
    }
    for i, (what, array) in enumerate(wrong.items()):
        np.save(demo_dir / f"wrong{i}.npy", array)
        cli = run_cli(["run", "demo48.tgrs", "-i", f"wrong{i}.npy", "-o", f"w{i}.npy"], demo_dir)
        assert cli.status == 1
        with pytest.raises(tigris.Error) as e:
            s.run(array)
        # The CLI names the file, Python the call; the rest of the line is the same.
        assert str(e.value) == error_message(cli).replace(f"wrong{i}.npy", "Session.run"), what
        assert e.value.exit_status == 1
    assert "float64 array, input 'image' is 1x3x64x64 float32" in str(pytest.raises(tigris.Error, s.run, wrong["dtype"]).value)
    with pytest.raises(tigris.Error, match=r"Session.run: shape 1x64x64x3, input 'image' is 1x3x64x64 float32 \(the model's declared axis order"):
        s.run(wrong["shape"])
    with pytest.raises(tigris.Error, match="unsupported array dtype '<c8'"):
        s.run(np.zeros((1, 3, 64, 64), np.complex64))
    # A list is no array of the input's dtype: refused, not converted.
    with pytest.raises(tigris.Error, match="float64 array"):
        s.run([[[[0.0] * 64] * 64] * 3])
    with pytest.raises(tigris.Error, match="'label' names no input of the model; its inputs are image"):
        s.run({"image": np.zeros((1, 3, 64, 64), np.float32), "label": np.zeros(1)})
    with pytest.raises(tigris.Error, match="input 'image' is missing"):
        s.run({})
    assert s.memory.runs == 0  # nothing ran


def test_a_file_that_is_no_plan(demo_dir):
    with pytest.raises(tigris.Error, match=r"demo.onnx: not a TiGrIS plan; compile the model first") as e:
        tigris.Session(demo_dir / "demo.onnx")
    assert e.value.exit_status == 1


# Shared models: the Session's output bytes are `tigris run`'s, on int8 and float boundaries,
# TFLite and ONNX, single- and multi-stage plans.
SHARED = [
    ("tflite/vww_96_int8.tflite", "24K"),
    ("tflite/kws_ref_model.tflite", "16K"),
    ("tflite/ad01_int8.tflite", "8K"),
    ("tflite/vww_96_float.tflite", "64K"),
    ("tflite-micro/simple_add_model.tflite", "64K"),
    ("onnx/ds_cnn.onnx", "32K"),
    ("onnx/mobilenet_v2_035_96_2cls_qdq.onnx", "32K"),
]


@pytest.mark.parametrize("model,budget", SHARED, ids=[m for m, _ in SHARED])
def test_shared_models_give_the_bytes_of_tigris_run(tmp_path, model, budget):
    path = shared_model(model)
    plan = tigris.compile(path, fast=budget)
    plan.save(tmp_path / "m.tgrs")
    with tigris.Session(plan) as s:
        inputs = random_inputs(s)
        ours = s.run(inputs)
        assert s.memory.fast_peak_bytes <= tigris.parse_size(budget)
    cli, _ = cli_run("m.tgrs", inputs, tmp_path)
    assert list(ours) == list(cli)
    for name in ours:
        assert ours[name].dtype == cli[name].dtype and ours[name].shape == cli[name].shape
        assert ours[name].tobytes() == cli[name].tobytes(), name


def test_float_model_against_pytorchs_output(tmp_path):
    path = shared_model("onnx/mobilenet_v2_035_96_2cls.onnx")
    x = np.load(shared_model("refs/mobilenet_v2_035_96_2cls.input.npy"))
    ref = np.load(shared_model("refs/mobilenet_v2_035_96_2cls.output.npy"))
    with tigris.Session(tigris.compile(path, fast="64K")) as s:
        (y,) = s.run(x).values()
    assert y.shape == ref.shape
    assert np.max(np.abs(y - ref)) <= 1e-4 * np.max(np.abs(ref))


# A plan that keeps state: the crafted accumulator (python/tests/stateful_plan.cpp), whose
# outputs follow by hand: y = relu(initial + x1 + ... + xk), initial = {1, -2, 3, -4}.
def test_state_persists_between_runs_until_reset(stateful_plan, tmp_path):
    x1 = np.array([[10, 20, 30, 40]], np.float32)
    x2 = np.array([[-100, 1, 1, 1]], np.float32)
    with tigris.Session(stateful_plan) as s:
        assert s.state_bytes == 16 and s.memory.state_bytes == 16
        assert s.inputs == [tigris.TensorInfo("x", np.dtype("float32"), (1, 4))]
        assert s.run(x1)["y"].tolist() == [[11, 18, 33, 36]]
        assert s.run(x2)["y"].tolist() == [[0, 19, 34, 37]]
        assert s.run(x1)["y"].tolist() == [[0, 39, 64, 77]]
        with pytest.raises(tigris.Error):
            s.run(x1.astype(np.float64))  # refused before running: the state stays
        _, events, counters = s.trace(x2)  # a traced run is a run too
        assert counters.copy_bytes == 32 and [e["kind"] for e in events].count("copy") == 2
        assert s.run(np.zeros((1, 4), np.float32))["y"].tolist() == [[0, 40, 65, 78]]
        s.reset_state()
        assert s.run(x1)["y"].tolist() == [[11, 18, 33, 36]]
        assert s.memory.runs == 6
    # `tigris run` is one run from the initial state: the first run's bytes.
    cli, _ = cli_run(stateful_plan, {"x": x1}, tmp_path)
    assert cli["y"].tolist() == [[11, 18, 33, 36]]
    assert "state" in str(tigris.inspect(stateful_plan))
