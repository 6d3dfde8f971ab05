"""tigris.Error: the CLI's one-line messages, with the exit status as kind."""

import pytest
from conftest import error_message, python_words, run_cli

import tigris


@pytest.mark.parametrize(
    "call,args",
    [
        (lambda: tigris.analyze("missing.onnx"), ["analyze", "missing.onnx"]),
        (lambda: tigris.compile("missing.onnx"), ["compile", "missing.onnx", "-m", "256K", "-o", "x.tgrs"]),
        (lambda: tigris.inspect("missing.tgrs"), ["inspect", "missing.tgrs"]),
        (lambda: tigris.analyze("demo_input.npy"), ["analyze", "demo_input.npy"]),
        (lambda: tigris.analyze(".", fast=None), ["analyze", "."]),
        (lambda: tigris.analyze("demo.onnx", fast="12Q"), ["analyze", "demo.onnx", "-m", "12Q"]),
        (lambda: tigris.analyze("demo.onnx", fast=0), ["analyze", "demo.onnx", "-m", "0"]),
        (lambda: tigris.analyze("demo.onnx", flash=0), ["analyze", "demo.onnx", "-f", "0"]),
        (lambda: tigris.analyze("demo.onnx", fast=1 << 33), ["analyze", "demo.onnx", "-m", str(1 << 33)]),
        (lambda: tigris.analyze("demo.onnx", input_shapes={"nope": (1,)}), ["analyze", "demo.onnx", "--input-shape", "nope:1"]),
    ],
    ids=["missing", "compile-missing", "inspect-missing", "not-a-model", "directory", "bad-size", "zero-fast",
         "zero-flash", "over-uint32", "unknown-input"],
)
def test_messages_and_exit_status_are_the_clis(in_demo, call, args):
    with pytest.raises(tigris.Error) as e:
        call()
    cli = run_cli(args, in_demo)
    assert cli.status in (1, 2)
    assert str(e.value) == e.value.message == python_words(error_message(cli))
    assert e.value.exit_status == cli.status
    assert e.value.kind == {1: "failure", 2: "usage"}[cli.status]


def test_a_plan_is_not_a_model(in_demo):
    plan = tigris.compile("demo.onnx", fast="96K")
    with pytest.raises(tigris.Error, match="a TiGrIS plan, not a model"):
        tigris.analyze(plan)


def test_wrong_argument_types_are_type_errors():
    with pytest.raises(TypeError, match="model must be a path, bytes, an onnx.ModelProto or a tigris.Plan"):
        tigris.analyze(42)
    with pytest.raises(tigris.Error, match="fast must be a size in bytes or a string like '256K'") as e:
        tigris.analyze(b"\x08\x01", fast=1.5)
    assert e.value.exit_status == 2


def test_error_is_an_exception_with_kind():
    e = tigris.Error("x.onnx: no such file")
    assert isinstance(e, Exception) and e.exit_status == 1 and e.kind == "failure" and e.report is None
    assert tigris.Error("bad flag", 2).kind == "usage"
