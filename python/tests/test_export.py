"""tigris.export: the banded TFLite model `tigris export` writes, in memory, and its figures."""

import shutil

import pytest
from conftest import error_message, run_cli, shared_model

import tigris


@pytest.fixture
def vww(tmp_path):
    path = tmp_path / "vww.tflite"
    shutil.copy(shared_model("tflite/vww_96_int8.tflite"), path)
    return path


def test_bytes_figures_and_text_equal_the_cli(vww, tmp_path):
    result = tigris.export(vww, name="vww.tflite")
    cli = run_cli(["export", "vww.tflite", "-o", "cli.tflite"], tmp_path)
    assert cli.status == 0, cli.err
    assert bytes(result) == (tmp_path / "cli.tflite").read_bytes()
    lines = cli.out.splitlines(keepends=True)
    assert lines[-1].startswith("wrote cli.tflite")
    assert str(result) == "".join(lines[:-1])
    f = result.figures
    assert f.head_before_bytes == 72 * 1024 and f.head_after_bytes == 45 * 1024  # the CLI's 72.00 -> 45.00 KiB
    assert f.total_change_bytes == f.head_change_bytes + f.persistent_growth_bytes < 0
    assert f.runs[0].bands == 4 and (f.runs[0].first_op, f.runs[0].last_op) == (2, 3)
    assert result.total_change_bytes == f["total_change_bytes"]  # figures also as attributes
    assert f.model_bytes == len(result)
    # The rewritten model is a model tigris reads.
    assert tigris.inspect(bytes(result)).operators == f.operators_after
    saved = result.save(tmp_path / "mine.tflite")
    assert open(saved, "rb").read() == bytes(result)


def test_other_targets_as_the_cli(vww, tmp_path):
    result = tigris.export(vww, target="lp64", name="vww.tflite")
    cli = run_cli(["export", "vww.tflite", "--target", "lp64", "-o", "lp64.tflite"], tmp_path)
    assert bytes(result) == (tmp_path / "lp64.tflite").read_bytes()
    assert result.target == "lp64"
    with pytest.raises(tigris.Error) as e:
        tigris.export(vww, target="avr")
    assert e.value.exit_status == 2 and "target must be" in str(e.value)


def test_refusal_as_the_cli(tmp_path):
    shutil.copy(shared_model("tflite-micro/hello_world_int8.tflite"), tmp_path / "hello.tflite")
    with pytest.raises(tigris.Error) as e:
        tigris.export(tmp_path / "hello.tflite", name="hello.tflite")
    cli = run_cli(["export", "hello.tflite"], tmp_path)
    assert cli.status == 1 == e.value.exit_status
    assert str(e.value) == error_message(cli)
    assert str(e.value).startswith("no model written: ")
    assert not (tmp_path / "hello_export.tflite").exists()
