"""tigris.compile: the plan `tigris compile` writes, in memory."""

import pytest
from conftest import error_message, python_words, run_cli

import tigris


def cli_plan(args, cwd, out):
    r = run_cli(["compile", *args, "-o", out], cwd)
    assert r.status == 0, r.err
    return r, (cwd / out).read_bytes()


def test_plan_bytes_and_summary_equal_the_cli(in_demo, tmp_path):
    plan = tigris.compile("demo.onnx", fast="96K", slow="1M")
    cli, data = cli_plan(["demo.onnx", "-m", "96K+1M"], in_demo, "cli96.tgrs")
    assert bytes(plan) == plan.data == data
    assert len(plan) == len(data)
    # The summary is what compile prints before its `wrote` line.
    lines = cli.out.splitlines(keepends=True)
    assert lines[-1].startswith("wrote cli96.tgrs")
    assert str(plan.summary) == "".join(lines[:-1])
    assert plan.summary.fast.verdict == "fits" and plan.summary.flash.plan_bytes == len(data)
    assert plan.name == "demo.tgrs"


def test_lz4_and_xip_as_the_cli(in_demo):
    plan = tigris.compile("demo.onnx", fast="64K", compress="lz4", xip=True)
    _, data = cli_plan(["demo.onnx", "-m", "64K+4M", "-c", "lz4", "--xip"], in_demo, "cli_lz4.tgrs")
    assert bytes(plan) == data
    with pytest.raises(tigris.Error, match="compress must be 'none' or 'lz4'") as e:
        tigris.compile("demo.onnx", compress="zip")
    assert e.value.exit_status == 2


def test_save_writes_the_plan_and_refuses_other_files(in_demo, tmp_path):
    plan = tigris.compile("demo.onnx", fast="96K")
    path = tmp_path / "p.tgrs"
    assert plan.save(path) == str(path)
    assert path.read_bytes() == bytes(plan)
    smaller = tigris.compile("demo.onnx", fast="48K")
    smaller.save(path)  # an earlier plan is replaced
    assert path.read_bytes() == bytes(smaller)
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    with pytest.raises(tigris.Error, match="exists and is not what this would write"):
        plan.save(other)
    assert other.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "p.tgrs"]  # no temporary left
    loaded = tigris.Plan.load(path)
    assert bytes(loaded) == bytes(smaller) and loaded.name == str(path)


def test_no_plan_is_an_error_with_the_cli_message_and_the_summary(in_demo):
    with pytest.raises(tigris.Error) as e:
        tigris.compile("demo.onnx", fast="512")
    cli = run_cli(["compile", "demo.onnx", "-m", "512+4M", "-o", "none.tgrs"], in_demo)
    assert cli.status == 1 == e.value.exit_status
    assert e.value.kind == "failure"
    assert str(e.value) == error_message(cli)
    assert str(e.value).startswith("no plan written: ")
    assert str(e.value.report) == cli.out
    assert e.value.report.fast.verdict == "does_not_fit"
    assert not (in_demo / "none.tgrs").exists()


@pytest.mark.parametrize(
    "kwargs,flags",
    [
        ({"fast": 0}, ["-m", "0"]),
        ({"fast": "96K", "slow": 0}, ["-m", "96K+0"]),
        ({"fast": "96K", "flash": "1K"}, ["-m", "96K", "-f", "1K"]),
        ({"fast": "96K", "flash": 0}, ["-m", "96K", "-f", "0"]),
    ],
)
def test_budget_refusals_as_the_cli(in_demo, kwargs, flags):
    with pytest.raises(tigris.Error) as e:
        tigris.compile("demo.onnx", **kwargs)
    cli = run_cli(["compile", "demo.onnx", *flags, "-o", "refused.tgrs"], in_demo)
    assert (e.value.exit_status, str(e.value)) == (cli.status, python_words(error_message(cli)))
