"""The committed vLLM / SGLang flag lists, their API, and the extraction rule."""

from __future__ import annotations

import importlib
import re
import textwrap
from pathlib import Path

import pytest

from sizing.launch.vllm_flags import (
    VLLM_VERSION,
    FlagListMissing,
    canonical_option,
    known_flags,
    known_sglang_flags,
    vllm_option_specs,
)

ROOT = Path(__file__).resolve().parents[2]
VLLM_LIST = ROOT / "sizing" / "launch" / "data" / f"vllm_flags-{VLLM_VERSION}.txt"

MUST_HAVE = (
    "--tensor-parallel-size -tp --pipeline-parallel-size -pp --data-parallel-size -dp "
    "--max-model-len --gpu-memory-utilization --kv-cache-dtype --max-num-seqs "
    "--max-num-batched-tokens --block-size --enforce-eager --quantization -q "
    "--kv-cache-memory-bytes --host --port --api-key --enable-expert-parallel -ep "
    "--distributed-executor-backend --dtype --served-model-name --trust-remote-code"
).split()
REMOVED = ["--swap-space", "--max-seq-len-to-capture", "--num-scheduler-steps", "--disable-log-requests-x"]
SGLANG_MUST_HAVE = (
    "--model-path --tp-size --ep --nnodes --node-rank --dist-init-addr --mem-fraction-static "
    "--context-length --kv-cache-dtype --host --port --api-key --moe-a2a-backend"
).split()


def _load_script(name: str):
    """Import the extractor module ``scripts.flags.<name>`` (the repository root is on the path)."""
    return importlib.import_module(f"scripts.flags.{name}")


def test_header_names_version_and_sha256() -> None:
    header = [line for line in VLLM_LIST.read_text().splitlines() if line.startswith("#")]
    assert header[0].startswith(f"# vLLM {VLLM_VERSION}:")
    assert re.fullmatch(
        rf"# source: vllm-{re.escape(VLLM_VERSION)}\.tar\.gz sha256:[0-9a-f]{{64}}", header[1]
    )


def test_list_is_sorted_unique_and_well_formed() -> None:
    flags = [line for line in VLLM_LIST.read_text().splitlines() if not line.startswith("#")]
    assert flags == sorted(set(flags))
    assert all(re.fullmatch(r"--?[a-z0-9][a-zA-Z0-9-]*|-O", f) for f in flags)
    assert len(known_flags()) == len(flags) == 497


@pytest.mark.parametrize("flag", MUST_HAVE)
def test_must_have_flags_present(flag: str) -> None:
    assert flag in known_flags(VLLM_VERSION)


@pytest.mark.parametrize("flag", REMOVED)
def test_removed_flags_absent(flag: str) -> None:
    assert flag not in known_flags()


def test_boolean_negations_follow_enable_disable_action() -> None:
    flags = known_flags()
    assert {"--no-enforce-eager", "--no-enable-prefix-caching", "--disable-prefix-caching"} <= flags
    assert {"--disable-expert-parallel", "--enable-custom-all-reduce", "--disable-log-requests"} <= flags
    assert "--no-tensor-parallel-size" not in flags and "--no-disable-log-stats" not in flags


def test_unknown_version_raises_clear_error() -> None:
    with pytest.raises(FlagListMissing, match=r"vllm_flags-0\.1\.0\.txt"):
        known_flags("0.1.0")


def test_option_specs_value_kinds_and_choices() -> None:
    specs = vllm_option_specs()
    assert specs["--max-model-len"]["kind"] == "human_readable_int_or_auto"
    assert specs["--kv-cache-memory-bytes"]["kind"] == "human_readable_int"
    assert specs["--api-key"]["kind"] == "multi"
    assert specs["--tensor-parallel-size"]["aliases"] == ["-tp"]
    kv = specs["--kv-cache-dtype"]
    assert {"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "nvfp4"} <= set(kv["choices"])
    assert kv["choices_enforced_by_argparse"] is False
    assert {"fp8", "mxfp4", "awq_marlin", "compressed-tensors"} <= set(specs["--quantization"]["choices"])
    assert specs["--dtype"]["choices"] == ["auto", "bfloat16", "float", "float16", "float32", "half"]


def test_sglang_list_and_abbreviations() -> None:
    flags = known_sglang_flags("0.5.23")
    assert set(SGLANG_MUST_HAVE) <= flags
    assert canonical_option("--tp", flags) == "--tp-size"
    assert canonical_option("--dp", flags) == "--dp-size"
    assert canonical_option("--ep", flags) == "--ep"
    assert canonical_option("--tp", known_flags()) is None
    assert canonical_option("--port=8000", known_flags()) == "--port"


FAKE_SOURCES = {
    "vllm/entrypoints/common/cli_args.py": """
        from vllm.engine.arg_utils import AsyncEngineArgs
        @config
        class BaseFrontendArgs:
            enable_thing: bool = False
            lora_modules: list[str] | None = None
            @classmethod
            def _customize_cli_kwargs(cls, kw):
                kw["lora_modules"]["flags"] = ["-lm"]
                return kw
            @classmethod
            def add_cli_args(cls, parser):
                kw = cls._customize_cli_kwargs(get_kwargs(cls))
                for key, value in kw.items():
                    extra = value.pop("flags", [])
                    parser.add_argument(*extra, f"--{key.replace('_', '-')}", **value)
                return parser
        @config
        class FrontendArgs(BaseFrontendArgs):
            api_key: list[str] | None = None
        def make_arg_parser(parser):
            parser.add_argument("model_tag", nargs="?")
            parser.add_argument("--headless", action="store_true")
            parser = FrontendArgs.add_cli_args(parser)
            return AsyncEngineArgs.add_cli_args(parser)
    """,
    "vllm/engine/arg_utils.py": """
        from vllm.config.cache import CacheConfig
        def _compute_kwargs(cls):
            big = {"kv_bytes"}
            if name == "max_len":
                kwargs[name]["type"] = parse_int_or_auto
            elif name in big:
                kwargs[name]["type"] = parse_int
        class EngineArgs:
            @staticmethod
            def add_cli_args(parser):
                cache_kwargs = get_kwargs(CacheConfig)
                parser.add_argument("--max-len", **cache_kwargs["max_len"])
                parser.add_argument("--kv-bytes", **cache_kwargs["kv_bytes"])
                parser.add_argument("--enable-caching", **{**cache_kwargs["caching"], "default": None})
                parser.add_argument("--dtype-x", "-dx", **cache_kwargs["dtype_x"])
                parser.add_argument("--flag-y", action="store_true")
                return parser
        class AsyncEngineArgs(EngineArgs):
            @staticmethod
            def add_cli_args(parser):
                parser = EngineArgs.add_cli_args(parser)
                parser.add_argument("--disable-logs", action=argparse.BooleanOptionalAction)
                return parser
    """,
    "vllm/config/__init__.py": "",
    "vllm/config/cache.py": """
        from typing import Literal
        if TYPE_CHECKING:
            from vllm.config.kinds import DX
        else:
            DX = str
        @config
        class CacheConfig:
            max_len: int | None = None
            kv_bytes: int = 0
            caching: bool | None = None
            dtype_x: DX | None = None
    """,
    "vllm/config/kinds.py": "DX = Literal['b', 'a']\n",
    "vllm/utils/argparse_utils.py": """
        class FlexibleArgumentParser:
            def parse_args(self, args):
                return [a for a in args if a.startswith("-Z")]
    """,
}


def test_extraction_rule_on_synthetic_release() -> None:
    extractor = _load_script("vllm")
    index = extractor.SourceIndex({k: textwrap.dedent(v) for k, v in FAKE_SOURCES.items()})
    options = extractor.ServeParser(index).options()
    flags = sorted(s for option in options for s in option.strings)
    assert flags == sorted(
        [
            "--headless",
            "--enable-thing",
            "--no-enable-thing",
            "--disable-thing",
            "--lora-modules",
            "-lm",
            "--api-key",
            "--max-len",
            "--kv-bytes",
            "--enable-caching",
            "--no-enable-caching",
            "--disable-caching",
            "--dtype-x",
            "-dx",
            "--flag-y",
            "--disable-logs",
            "--no-disable-logs",
            "--enable-logs",
            "-h",
            "--help",
            "-Z",
        ]
    )
    kinds = {option.strings[0]: (option.kind, option.choices, option.enforced) for option in options}
    assert kinds["--max-len"][0] == "parse_int_or_auto"
    assert kinds["--kv-bytes"][0] == "parse_int"
    assert kinds["--dtype-x"] == ("choice", ["a", "b"], False)
    assert kinds["--api-key"][0] == "multi"


def test_one_command_line_serves_both_extractors() -> None:
    """Assert ``python -m scripts.flags`` knows both engines and shares one writer with them."""
    main = importlib.import_module("scripts.flags.__main__")
    assert set(main.EXTRACTORS) == {"vllm", "sglang"}
    with pytest.raises(SystemExit) as exit_info:
        main.main(["tgi", "1.0"])
    assert exit_info.value.code == 2
