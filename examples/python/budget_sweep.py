# How small a memory can this model run in? Analyze it at several budgets, plot the peak
# against the budget, compile it at the smallest budget that fits and run the plan.
#
#   python3 budget_sweep.py MODEL.onnx|MODEL.tflite [INPUT.npy]
#
# Without arguments it takes $TIGRIS_EXAMPLE_MODEL, else demo.onnx (`tigris-demo-model write .`
# writes it). budget_sweep.ipynb is this file as a notebook, cell for cell (a test keeps them
# the same). The plot needs matplotlib (python3-matplotlib); without it the table is all.

# %%
import os
import sys

import numpy as np

import tigris

args = [a for a in sys.argv[1:] if a.endswith((".onnx", ".tflite", ".npy"))]
MODEL = next((a for a in args if not a.endswith(".npy")), os.environ.get("TIGRIS_EXAMPLE_MODEL", "demo.onnx"))
INPUT = next((a for a in args if a.endswith(".npy")), os.environ.get("TIGRIS_EXAMPLE_INPUT"))
PLOT = os.environ.get("TIGRIS_EXAMPLE_PLOT", "peak_vs_budget.png")

# %%
# With no budget: the whole graph held at once, the largest tensor, the interface.
whole = tigris.analyze(MODEL, fast=None)
print(whole)

# %%
# Halve the budget from the unscheduled peak until the model no longer fits.
rows = []
budget = whole.model.unscheduled_peak_bytes
while budget >= 256:
    r = tigris.analyze(MODEL, fast=budget, slow="64M")
    rows.append((budget, r.fast.verdict, r.fast.scheduled_peak_bytes, r.slow.peak_bytes, r.fast.stages))
    if r.fast.verdict != "fits":
        print(f"below {budget} bytes: no plan; the floor is {r.fast.minimum_for_partition_bytes} bytes")
        break
    budget //= 2
print(f"{'budget':>10} {'verdict':>13} {'fast peak':>10} {'slow peak':>10} {'stages':>6}")
for b, verdict, fast_peak, slow_peak, stages in rows:
    print(f"{b:>10} {verdict:>13} {fast_peak:>10} {slow_peak:>10} {stages:>6}")

# %%
# Peak against budget: the plan's fast peak stays under the budget; what does not fit in
# fast memory spills to slow memory.
fitting = [row for row in rows if row[1] == "fits"]
try:
    import matplotlib

    if "ipykernel" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
else:
    budgets = [row[0] / 1024 for row in fitting]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(budgets, [row[2] / 1024 for row in fitting], "o-", label="fast peak")
    ax.plot(budgets, [row[3] / 1024 for row in fitting], "s--", label="slow peak")
    ax.plot(budgets, budgets, ":", color="grey", label="budget")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("fast-memory budget (KiB)")
    ax.set_ylabel("KiB")
    ax.set_title(os.path.basename(MODEL))
    ax.legend()
    fig.savefig(PLOT, dpi=100, bbox_inches="tight")
    print(f"wrote {PLOT}")

# %%
# Compile at the smallest budget that fits and run the plan on the host runtime.
smallest = fitting[-1][0]
plan = tigris.compile(MODEL, fast=smallest, slow="64M")
print(plan.summary)
with tigris.Session(plan) as session:
    if INPUT:
        x = np.load(INPUT)
    else:
        x = np.random.default_rng(0).standard_normal(session.inputs[0].shape).astype(session.inputs[0].dtype)
    outputs = session.run(x)
    for name, y in outputs.items():
        print(name, y.shape, y.dtype, np.round(y.ravel()[:10], 4))
    memory = session.memory
    print(f"fast peak {memory.fast_peak_bytes} of {smallest} bytes, slow peak {memory.slow_peak_bytes} bytes")
    assert memory.fast_peak_bytes <= smallest

# %%
# The report of the budget the plan was compiled for; a notebook shows the memory timeline
# of a traced run (fast bytes live at each step, before and after scheduling), then the text.
tigris.analyze(MODEL, fast=smallest, slow="64M")
