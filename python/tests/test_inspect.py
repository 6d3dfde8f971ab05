"""tigris.inspect: plans, ONNX and TFLite models, as `tigris inspect` describes them."""

import json

import pytest
from conftest import error_message, run_cli, shared_model

import tigris


def check_like_cli(report, target, cwd):
    assert str(report) == run_cli(["inspect", target], cwd).out
    assert report.text(verbose=True) == run_cli(["inspect", target, "-v"], cwd).out
    assert report.to_dict() == json.loads(run_cli(["inspect", target, "--json"], cwd).out)


def test_onnx_model(in_demo):
    r = tigris.inspect("demo.onnx")
    assert r.kind == "onnx" and r.format == "onnx" and r.operators == 11
    check_like_cli(r, "demo.onnx", in_demo)


def test_plan_as_object_path_and_bytes(in_demo):
    plan = tigris.compile("demo.onnx", fast="96K")
    plan.save("demo.tgrs")
    by_path = tigris.inspect("demo.tgrs")
    assert by_path.kind == "plan"
    check_like_cli(by_path, "demo.tgrs", in_demo)
    assert str(tigris.inspect(plan)) == str(by_path)  # the Plan is named demo.tgrs
    assert str(plan.inspect()) == str(by_path)
    assert str(tigris.inspect(bytes(plan), name="demo.tgrs")) == str(by_path)


def test_tflite_model():
    path = shared_model("tflite/vww_96_int8.tflite")
    r = tigris.inspect(path)
    assert r.kind == "tflite"
    check_like_cli(r, str(path), ".")


@pytest.mark.parametrize("content", [b"", b"hello, not a model"])
def test_foreign_bytes_as_the_cli(tmp_path, content):
    (tmp_path / "x.bin").write_bytes(content)
    with pytest.raises(tigris.Error) as e:
        tigris.inspect(tmp_path / "x.bin")
    cli = run_cli(["inspect", "x.bin"], tmp_path)
    assert (e.value.exit_status, str(e.value).replace(str(tmp_path) + "/", "")) == (cli.status, error_message(cli))
