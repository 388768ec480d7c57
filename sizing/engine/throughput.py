"""Serving throughput, latency and cost: the steady state of vLLM's continuous batching, in closed form.

Vectorised over rows (one row = one engine configuration × request shape × concurrency); no per-row
Python loop. Inputs are the per-GPU arrays :func:`sizing.engine.throughput_inputs.inputs` builds (bytes,
FLOP/s, seconds, tokens). One engine replica serves ``concurrency / dp`` clients in a closed loop, as
``vllm bench serve --max-concurrency C --random-input-len I --random-output-len O --ignore-eos`` drives it.

The scheduler this follows (vLLM V1, ``vllm/v1/core/sched/scheduler.py``, ``Scheduler.schedule``): every
step starts from ``token_budget = self.max_num_scheduled_tokens`` (``--max-num-batched-tokens``), schedules
the RUNNING requests first (one decode token each) and then WAITING ones, chunking a prompt into what is
left of the budget, while ``len(self.running) < self.max_num_running_reqs`` (``--max-num-seqs``) and
``kv_cache_manager.allocate_slots`` finds free blocks (the KV pool of the memory engine). So:

- running sequences ``B = min(C / dp, max_num_seqs, floor(kv_cache_tokens / (I + O / 2)))`` (mean length);
- prompt tokens: each request brings ``I`` per ``O`` steps, in chunks that fill the budget left by the
  decode tokens, so ``B · I / budget`` of every ``O`` steps carry a chunk;
- one step reads the weights it touches (routed experts: the expected distinct experts ``T`` tokens hit,
  ``E · (1 − (1 − k/E)^T)``, as top-k routing draws them; with data and expert parallelism ``T`` counts
  the tokens of every engine sharing the experts), the KV cache of every running sequence (sliding layers
  capped at the window, MLA's latent, the linear layers' state), and computes ``2 · active parameters``
  FLOPs per decode token (a prompt token skips the LM head) plus attention over the context;
- step time ``max(bytes / (η_bw · bandwidth), FLOPs / (η_c · peak)) + TP all-reduce + expert exchange
  + τ_L · layers + τ_step + τ_s · B + τ_e · held experts · layers``, where the routed experts of a
  weight-only format read no faster than ``τ_dq`` per weight the kernels dequantise;
- ``TPOT`` = the mean of those chunk steps and the plain decode steps (``vllm bench serve`` excludes the
  first token from TPOT); ``TTFT`` = the own prompt's chunks plus a fitted share of the queue of prompts
  that arrived with it,
  plus the wait for a free slot when clients exceed ``B``;
- output tokens/s per server = ``dp · B · O / (TTFT + (O − 1) · TPOT)``; tokens/s per user = ``1 / TPOT``.

The constants (η_bw, η_experts, η_kv, η_c, overlap, τ_L, τ_step, τ_s, τ_allreduce, τ_e, wave_share) are
fitted per architecture class, τ_dq once for all classes, on published runs
(``python -m scripts.throughput_fit``, ``calibration/throughput.md``); a class without them gets the
roofline bound (η = 1, no fixed costs) and no band.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

Arrays = Mapping[str, np.ndarray]

LIMITS = ("bandwidth", "compute", "interconnect", "host", "kv-pool", "max-num-seqs")
"""What bounds a row, in the order of the codes :func:`steady_state` writes to ``limited_by``."""

ACTIVATION_BYTES = 2
"""Bytes per activation element the TP all-reduce moves (bf16, the model's dtype)."""


def experts_touched(tokens: np.ndarray, hit_share: np.ndarray) -> np.ndarray:
    """Expected share of routed experts ``tokens`` tokens hit when each picks ``hit_share`` = k/E of them:
    ``1 − (1 − k/E)^T`` (independent top-k draws; 1 for a dense model, whose share is 1)."""
    return 1.0 - np.power(1.0 - np.minimum(hit_share, 1.0), np.maximum(tokens, 1.0))


def expert_blocks(x: Arrays) -> np.ndarray:
    """Routed experts (or TP slices of them) one rank's fused-MoE kernels span per layer: every expert it
    holds (``experts / ep``), touched or not. vLLM's ``moe_align_block_size`` pads each expert's tokens to
    the block size and sizes the kernel grid for ``topk_ids.numel() + num_experts · (block_size − 1)`` rows
    (``vllm/model_executor/layers/fused_moe/moe_align_block_size.py``), so a step costs a fitted time per
    held expert (``tau_expert_s``) on top of the bytes it reads."""
    return x["experts_on_rank"]


def attended(x: Arrays, context: np.ndarray) -> np.ndarray:
    """(query, key) pairs of one decode token over ``context`` tokens, summed over the stage's layers:
    full layers attend to all of it, sliding layers to at most the window."""
    window = np.where(x["window"] > 0, x["window"], context)
    return x["full_on_stage"] * context + x["sliding_on_stage"] * np.minimum(context, window)


def step_bytes(
    x: Arrays, decode: np.ndarray, prompt: np.ndarray, context: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Bytes one GPU reads and writes in one step with ``decode`` running sequences at mean ``context``
    tokens and ``prompt`` prompt tokens: (dense weights, routed experts touched, KV cache and
    linear-attention state). The KV part is the running sequences' cache read plus the new tokens' K and V
    written; the state is read and written. With data and expert parallelism the experts a rank holds see
    the tokens of all ``expert_group`` engines of its EP group, which step together (vLLM's ``FusedMoE``
    dispatches over the EP group, ``vllm/model_executor/layers/fused_moe/layer.py``)."""
    tokens = decode + prompt
    experts = x["expert_bytes"] * experts_touched(tokens * x["expert_group"], x["hit_share"])
    kv_layers = x["full_on_stage"] + x["sliding_on_stage"]
    kv = x["kv_bytes_per_token_layer"] * (decode * attended(x, context) + tokens * kv_layers)
    state = 2 * decode * x["linear_state_bytes"] * x["linear_on_stage"]
    return x["dense_bytes"], experts, kv + state


def step_flops(
    x: Arrays, decode: np.ndarray, prompt: np.ndarray, context: np.ndarray, prompt_len: np.ndarray
) -> np.ndarray:
    """FLOPs of one step on one GPU: ``2 · active parameters`` per decode token, the same less the LM head
    (``vocab × hidden / tp``, ``head_params``) per prompt token, plus attention, ``2 · width`` per
    (query, key) pair (decode over ``context``, prompt tokens over half their prompt on average). vLLM
    computes logits only at the positions it samples (``hidden_states[logits_indices]`` before
    ``compute_logits``, the last scheduled token of each request: ``GPUModelRunner.execute_model``,
    ``vllm/v1/worker/gpu_model_runner.py``), so a prompt token skips the LM head GEMM."""
    pairs = decode * attended(x, context) + prompt * attended(x, prompt_len / 2)
    body = np.maximum(x["active_params"] - x["head_params"], 0.5 * x["active_params"])
    return 2 * (x["active_params"] * decode + body * prompt) + 2 * x["attn_width"] * pairs


def allreduce_seconds(x: Arrays, tokens: np.ndarray) -> np.ndarray:
    """Two all-reduces per layer of ``tokens × hidden`` bf16 values under tensor parallelism, NCCL's ring
    (``2 (n − 1) / n`` of the data crosses each link; NCCL docs, "Collective Operations: AllReduce"), plus a
    fitted latency per all-reduce (``tau_allreduce_s``; vLLM calls ``tensor_model_parallel_all_reduce`` after
    the attention output and the MLP down projection of every layer,
    ``vllm/distributed/communication_op.py``); with data and expert parallelism, the expert dispatch and
    combine of every layer (:func:`expert_exchange_seconds`)."""
    ring = 2 * (x["tp"] - 1) / x["tp"]
    volume = 2 * x["stage_layers"] * ring * tokens * x["hidden_size"] * ACTIVATION_BYTES
    latency = 2 * x["stage_layers"] * x["tau_allreduce_s"] * (x["tp"] > 1)
    return volume / x["link"] + latency + expert_exchange_seconds(x, tokens)


def expert_exchange_seconds(x: Arrays, tokens: np.ndarray) -> np.ndarray:
    """The expert dispatch and combine of every layer when ``expert_group`` > 1 engines share the experts:
    vLLM's default all-to-all backend gathers every engine's hidden states to every rank and scatters the
    sums back (``AgRsAll2AllManager``: ``all_gatherv`` then ``reduce_scatterv``,
    ``vllm/distributed/device_communicators/all2all.py``), so a rank receives
    ``(group − 1) · tokens · hidden`` bf16 values twice per layer, plus the fitted latency of each
    collective."""
    group = x["expert_group"]
    volume = 2 * x["stage_layers"] * (group - 1) * tokens * x["hidden_size"] * ACTIVATION_BYTES
    latency = 2 * x["stage_layers"] * x["tau_allreduce_s"] * (group > 1)
    return volume / x["link"] + latency


def dequant_seconds(x: Arrays, experts: np.ndarray) -> np.ndarray:
    """The floor on the routed-expert reads where the kernels dequantise the weights (``dequant`` = 1:
    a weight-only format, :func:`sizing.engine.throughput_inputs.dequantised`): each weight is unpacked
    and converted before the MMA (Marlin, ``vllm/model_executor/layers/fused_moe/fused_marlin_moe.py``;
    Triton ``matmul_ogs`` for MXFP4 on Hopper, ``get_mxfp4_backend`` in
    ``vllm/model_executor/layers/quantization/mxfp4.py``), a fitted ``tau_dequant_s`` seconds per weight
    (``experts / bytes per weight``); 0 elsewhere."""
    return x["dequant"] * experts / x["expert_weight_bytes"] * x["tau_dequant_s"]


def step_parts(
    x: Arrays, decode: np.ndarray, prompt: np.ndarray, context: np.ndarray, prompt_len: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The four parts of one step's time, seconds: memory, compute, interconnect and host (the fixed
    per-layer and per-step costs and the per-sequence cost)."""
    dense, experts, cache = step_bytes(x, decode, prompt, context)
    rest = (dense / x["eta_bw"] + cache / x["eta_kv"]) / x["bandwidth"]
    memory = rest + np.maximum(
        experts / (x["eta_experts"] * x["eta_bw"] * x["bandwidth"]), dequant_seconds(x, experts)
    )
    compute = step_flops(x, decode, prompt, context, prompt_len) / (x["eta_compute"] * x["peak_flops"])
    host = (
        x["tau_layer_s"] * x["stage_layers"]
        + x["tau_seq_s"] * decode
        + x["tau_step_s"] / x["pp"]
        + x["tau_expert_s"] * x["stage_layers"] * expert_blocks(x)
    )
    return memory, compute, allreduce_seconds(x, decode + prompt), host


def step_seconds(
    x: Arrays, decode: np.ndarray, prompt: np.ndarray, context: np.ndarray, prompt_len: np.ndarray
) -> np.ndarray:
    """One engine step, seconds: memory and compute overlap (the larger counts, plus a fitted share
    ``overlap_loss`` of the smaller: kernels that are not both at once), the rest adds up. With pipeline
    parallelism each token passes every stage once (``pp`` stage times)."""
    memory, compute, comm, host = step_parts(x, decode / x["pp"], prompt / x["pp"], context, prompt_len)
    core = np.maximum(memory, compute) + x["overlap_loss"] * np.minimum(memory, compute)
    return x["pp"] * (core + comm + host)


def slots(x: Arrays, input_len: np.ndarray, output_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sequences one engine runs at once for requests of ``input_len + output_len`` tokens: what the KV
    pool holds and ``--max-num-seqs``, each (count). vLLM allocates blocks as a sequence grows
    (``KVCacheManager.allocate_slots``), so the pool holds sequences at their mean length in the steady
    state, ``input_len + output_len / 2``."""
    pool = np.floor(x["kv_tokens"] / (input_len + output_len / 2))
    return pool, x["max_num_seqs"].astype(float)


def steady_state(
    x: Arrays, input_len: np.ndarray, output_len: np.ndarray, concurrency: np.ndarray
) -> dict[str, np.ndarray]:
    """Throughput, latency and what limits it for ``concurrency`` clients per server (see the module
    docstring). Seconds, tokens/s; ``limited_by`` holds codes into :data:`LIMITS`."""
    clients = concurrency / x["dp"]
    pool, seqs = slots(x, input_len, output_len)
    running = np.maximum(np.minimum(clients, np.minimum(pool, seqs)), 0.0)
    steps = wave(x, running, input_len, output_len)
    request = steps["ttft"] + (output_len - 1) * steps["tpot"]
    waiting = np.maximum(clients - running, 0.0) / np.maximum(running, 1e-9) * request
    out_tps = x["dp"] * running * output_len / request
    return {
        "running": running * x["dp"],
        "tpot_s": steps["tpot"],
        "ttft_s": steps["ttft"] + waiting,
        "output_tps": out_tps,
        "user_tps": 1.0 / steps["tpot"],
        "request_rate": out_tps / output_len,
        "total_tps": out_tps * (input_len + output_len) / output_len,
        "limited_by": limit_codes(
            x, running, steps["prompt"], input_len + output_len / 2, input_len, clients, pool, seqs
        ),
    }


def wave(
    x: Arrays, running: np.ndarray, input_len: np.ndarray, output_len: np.ndarray
) -> dict[str, np.ndarray]:
    """Mean TTFT and TPOT of ``running`` requests in a closed loop, seconds.

    TPOT: over the ``O`` steps of a request, the ``running · I`` prompt tokens of the requests that replace
    the finished ones arrive in full chunks (the scheduler fills the token budget), so
    ``running · I / budget``
    of the steps carry a chunk and the others only decode; averaging the two step times, not the tokens,
    keeps the experts a big chunk touches from being spread over every step. TTFT: a new request's prompt
    takes ``ceil(I / budget)`` full steps, after the prompts that arrived with it: fixed lengths keep a
    burst's requests close together, and ``wave_share`` (fitted) is the share of the burst's prompt queue a
    request waits through on average (0: spread out, 1: all at once).
    """
    budget = np.maximum(x["max_num_batched_tokens"] - running, 1.0)
    context = input_len + output_len / 2
    chunked = np.minimum(running * input_len / budget, output_len)
    chunk = running * input_len / np.maximum(chunked, 1e-9)
    full = step_seconds(x, running, chunk, context, input_len)
    plain = step_seconds(x, running, np.zeros_like(chunk), context, input_len)
    tpot = (chunked * full + (output_len - chunked) * plain) / output_len
    own, burst = np.ceil(input_len / budget), np.ceil(running * input_len / budget)
    first = step_seconds(x, running, np.minimum(running * input_len, budget), context, input_len)
    ttft = first * (own + x["wave_share"] * np.maximum(burst - own, 0.0) / 2)
    return {"ttft": ttft, "tpot": tpot, "prompt": running * input_len / output_len}


def open_loop(
    x: Arrays,
    input_len: np.ndarray,
    output_len: np.ndarray,
    concurrency: np.ndarray,
    rate: np.ndarray,
    rounds: int = 40,
) -> dict[str, np.ndarray]:
    """:func:`steady_state` when requests arrive at ``rate`` per second (``--request-rate``; ``inf``: the
    closed loop) with at most ``concurrency`` in flight: by Little's law the requests in flight are
    ``rate × request time``, found by damped fixed-point iteration (``rounds`` times, all rows at once);
    output tokens/s cannot exceed ``rate × O``."""
    inflight = concurrency.astype(float)
    for _ in range(rounds):
        out = steady_state(x, input_len, output_len, inflight)
        request = out["ttft_s"] + (output_len - 1) * out["tpot_s"]
        inflight = 0.5 * inflight + 0.5 * np.clip(rate * request, 1.0, concurrency)
    out = steady_state(x, input_len, output_len, inflight)
    capped = np.minimum(out["output_tps"], rate * output_len)
    scale = capped / out["output_tps"]
    return {
        **out,
        "output_tps": capped,
        "request_rate": out["request_rate"] * scale,
        "total_tps": out["total_tps"] * scale,
    }


def limit_codes(
    x: Arrays,
    running: np.ndarray,
    prompt: np.ndarray,
    context: np.ndarray,
    input_len: np.ndarray,
    clients: np.ndarray,
    pool: np.ndarray,
    seqs: np.ndarray,
) -> np.ndarray:
    """What bounds each row (codes into :data:`LIMITS`): a full KV pool or ``--max-num-seqs`` when clients
    wait for a slot, else the largest part of the step time."""
    memory, compute, comm, host = step_parts(x, running / x["pp"], prompt / x["pp"], context, input_len)
    part = np.argmax(np.stack([np.maximum(memory, 0), compute, comm, host]), axis=0).astype(np.int8)
    capped = clients > np.minimum(pool, seqs)
    cap = np.where(pool < seqs, np.int8(4), np.int8(5))
    return np.where(capped, cap, part).astype(np.int8)


def usd_per_million(price_monthly: np.ndarray, output_tps: np.ndarray, hours_per_month: float) -> np.ndarray:
    """Price per million output tokens: the monthly price over the tokens a month at ``output_tps``
    (``$/1M = price / (tok/s · hours · 3600) · 10^6``; NaN without a price, infinite at 0 tok/s)."""
    tokens = np.asarray(output_tps, dtype=float) * hours_per_month * 3600.0
    with np.errstate(divide="ignore"):
        return np.asarray(price_monthly, dtype=float) / tokens * 1e6


def banded(value: np.ndarray, p10: np.ndarray, p90: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The band of an estimate from its class's signed errors (measured / estimate − 1): the 10th and
    90th percentile applied to the estimate, (low, high). NaN percentiles give a NaN band."""
    return value * (1 + p10), value * (1 + p90)


def breakdown(
    x: Arrays, input_len: np.ndarray, output_len: np.ndarray, concurrency: np.ndarray
) -> dict[str, np.ndarray]:
    """The intermediate figures of :func:`steady_state` for a worked example, per GPU and per step: the
    running sequences, the bytes and FLOPs of a plain decode step, its memory, compute, interconnect and
    host times (seconds), and the step itself; then TPOT, TTFT and the outputs of :func:`steady_state`."""
    out = steady_state(x, input_len, output_len, concurrency)
    running = out["running"] / x["dp"]
    context = input_len + output_len / 2
    none = np.zeros_like(running)
    dense, experts, cache = step_bytes(x, running / x["pp"], none, context)
    memory, compute, comm, host = step_parts(x, running / x["pp"], none, context, input_len)
    return {
        **out,
        "running_engine": running,
        "weights_bytes": dense + experts,
        "cache_bytes": cache,
        "flops": step_flops(x, running / x["pp"], none, context, input_len),
        "memory_s": memory,
        "compute_s": compute,
        "comm_s": comm,
        "host_s": host,
        "plain_s": step_seconds(x, running, none, context, input_len),
    }
