"""tigris.analyze: the report `tigris analyze` prints, as data and as text."""

import json
import warnings

import pytest
from conftest import error_message, run_cli, shared_model

import tigris


def test_text_json_and_fields_equal_the_cli(in_demo):
    r = tigris.analyze("demo.onnx", fast="192K", slow="1M", flash="64K")
    cli = run_cli(["analyze", "demo.onnx", "-m", "192K+1M", "-f", "64K"], in_demo)
    assert cli.status == 0
    assert str(r) == cli.out
    as_json = json.loads(run_cli(["analyze", "demo.onnx", "-m", "192K+1M", "-f", "64K", "--json"], in_demo).out)
    assert r.to_dict() == as_json
    assert dict(r).keys() == as_json.keys()
    # Attribute and dict access reach the same fields, nested.
    assert r.fast.verdict == r["fast"]["verdict"] == "fits"
    assert r.fast.budget_bytes == 192 * 1024
    assert r.model.inputs[0].name == "image"
    assert r.model.inputs[0]["shape"] == [1, 3, 64, 64]
    assert r.flash.budget_bytes == 64 * 1024
    assert r.text(verbose=True) == run_cli(["analyze", "demo.onnx", "-m", "192K+1M", "-f", "64K", "-v"], in_demo).out
    assert json.loads(r.json()) == as_json
    with pytest.raises(AttributeError, match="no field 'verdict'"):
        r.verdict


def test_operator_counts_say_which_is_which(in_demo):
    r = tigris.analyze("demo.onnx", fast=None)
    assert (r.model.operators, r.model.source_operators) == (7, 11)
    assert "7 operators after normalization (11 in the file)" in str(r).splitlines()[0]
    assert "11 operators in the file" in str(tigris.inspect("demo.onnx")).splitlines()[0]


def test_sizes_as_integers_and_no_budget(in_demo):
    assert str(tigris.analyze("demo.onnx", fast=96 * 1024, slow=None)) == run_cli(
        ["analyze", "demo.onnx", "-m", "96K"], in_demo
    ).out
    r = tigris.analyze("demo.onnx", fast=None, slow=None)
    assert str(r) == run_cli(["analyze", "demo.onnx"], in_demo).out
    assert r.fast.verdict == "no_budget"


def test_does_not_fit_is_a_verdict_not_an_error(in_demo):
    # (with its global pool banded by input elements the demo fits 1K; 512 B is below its floor)
    r = tigris.analyze("demo.onnx", fast="512")
    assert r.fast.verdict == "does_not_fit"
    assert r.fast.minimum_for_partition_bytes > 512
    assert str(r) == run_cli(["analyze", "demo.onnx", "-m", "512+4M"], in_demo).out
    assert r._repr_svg_() is None  # no plan to run, no timeline
    assert "<pre>" in r._repr_html_()


def test_bytes_and_model_proto_give_the_same_report(in_demo):
    by_path = tigris.analyze("demo.onnx", fast="96K")
    data = (in_demo / "demo.onnx").read_bytes()
    assert str(tigris.analyze(data, fast="96K", name="demo.onnx")) == str(by_path)
    assert tigris.analyze(data, fast="96K").model.file == "<model bytes>"

    class StandIn:  # what tigris relies on of an onnx.ModelProto: SerializeToString()
        class graph:
            name = "demo"

        def SerializeToString(self):
            return data

    assert tigris.analyze(StandIn(), fast="96K").to_dict()["fast"] == by_path.to_dict()["fast"]
    assert tigris.analyze(StandIn(), fast="96K").model.file == "<StandIn demo>"


def test_onnx_model_proto(in_demo):
    onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed; the stand-in test covers ModelProto")
    proto = onnx.load("demo.onnx")
    r = tigris.analyze(proto, fast="96K", name="demo.onnx")
    assert str(r) == run_cli(["analyze", "demo.onnx", "-m", "96K+4M"], in_demo).out
    assert tigris.analyze(proto, fast="96K").model.file == "<ModelProto demo>"


def test_notebook_shows_the_memory_timeline_of_the_cli(in_demo, tmp_path):
    r = tigris.analyze("demo.onnx", fast="48K")
    svg = r._repr_svg_()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    cli = run_cli(["analyze", "demo.onnx", "-m", "48K+4M", "--svg", tmp_path / "t.svg"], in_demo)
    assert cli.status == 0, cli.err
    assert svg == (tmp_path / "t.svg").read_text()
    html = r._repr_html_()
    assert svg in html and "fits 48.00 KiB fast memory" in html


def test_tflite_model_has_the_tflite_micro_rows():
    path = shared_model("tflite/vww_96_int8.tflite")
    r = tigris.analyze(path, fast="64K")
    cli = run_cli(["analyze", path, "-m", "64K+4M"], ".")
    assert str(r) == cli.out
    assert r.tflite_micro.tensor_arena_bytes == 72 * 1024
    assert r.model.format == "tflite" and r.model.dtype == "int8"


def test_input_shapes_bind_as_the_cli_does(in_demo):
    r = tigris.analyze("demo.onnx", fast="96K", input_shapes={"image": (1, 3, 64, 64)})
    assert str(r) == run_cli(["analyze", "demo.onnx", "-m", "96K+4M", "--input-shape", "image:1x3x64x64"], in_demo).out
    with pytest.raises(tigris.Error) as e:
        tigris.analyze("demo.onnx", input_shapes=["image:1xQ"])
    cli = run_cli(["analyze", "demo.onnx", "--input-shape", "image:1xQ"], in_demo)
    assert (e.value.exit_status, e.value.kind) == (cli.status, "usage") == (2, "usage")
    assert str(e.value) == error_message(cli)


def test_free_dimension_warning_is_a_python_warning(in_demo, tmp_path):
    onnx = pytest.importorskip("onnx", reason="python3-onnx writes the model with a free dimension")
    proto = onnx.load("demo.onnx")
    proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    onnx.save(proto, tmp_path / "free.onnx")
    cli = run_cli(["analyze", "free.onnx"], tmp_path)
    expected = [line[len("warning: ") :] for line in cli.err.splitlines() if line.startswith("warning: ")]
    assert expected and "batch" in expected[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = tigris.analyze(tmp_path / "free.onnx", fast=None, name="free.onnx")
    assert [str(w.message) for w in caught] == expected
    assert r.warnings == expected
    assert str(r) == cli.out
