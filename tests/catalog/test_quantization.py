"""sizing.catalog.quantization: vLLM's --quantization names mapped to the catalog's formats."""

from __future__ import annotations

import pytest

from sizing.catalog.quantization import VLLM_METHODS, formats_for
from sizing.errors import UsageError
from sizing.launch.vllm_flags import quantization_methods


def test_every_mapped_name_is_a_vllm_method_and_a_catalog_format(catalog):
    assert set(VLLM_METHODS) <= set(quantization_methods())
    assert all(set(formats) <= set(catalog.precisions) for formats in VLLM_METHODS.values())


@pytest.mark.parametrize(
    ("name", "formats"),
    [
        ("awq", ("int4-awq",)),
        ("GPTQ_Marlin", ("int4-gptq",)),
        ("int4-awq", ("int4-awq",)),
        ("modelopt_fp4", ("nvfp4",)),
    ],
)
def test_names_map_to_formats(catalog, name, formats):
    assert formats_for(catalog, name) == formats


def test_unknown_and_unmodelled_methods_are_refused(catalog):
    with pytest.raises(UsageError, match="unknown method 'bogus'"):
        formats_for(catalog, "bogus")
    with pytest.raises(UsageError, match="models no checkpoint of this method"):
        formats_for(catalog, "torchao")
