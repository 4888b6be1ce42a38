"""Average two networks of the same graph in weight space: (1 - alpha) * BASE + alpha * TUNED.

A network fine-tuned on rendered tables gains on rendered dice it never saw and can lose on real ones (the
photos). Averaging its weights with the network it was fine-tuned from keeps most of either (WiSE-FT: Wortsman
et al., "Robust fine-tuning of zero-shot models", CVPR 2022): both lie in one basin, so the points between them
are networks too. Training only (needs the `onnx` package, as the training scripts do); see
vision/training/README.md for the face network made this way (measured, not adopted).

    python vision/training/average_networks.py BASE.onnx TUNED.onnx --alpha 0.7 --out OUT.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def average_weights(base: dict[str, np.ndarray], tuned: dict[str, np.ndarray], alpha: float) -> dict[str, np.ndarray]:
    """Each weight (1 - alpha) * base + alpha * tuned, in the base's dtype. The two must hold the same weights
    under the same names and shapes: anything else is not one network fine-tuned from the other."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha {alpha} is not between 0 (the base network) and 1 (the fine-tuned one)")
    if base.keys() != tuned.keys():
        raise ValueError(f"not the same weights: only in base {sorted(base.keys() - tuned.keys())}, "
                         f"only in tuned {sorted(tuned.keys() - base.keys())}")
    out = {}
    for name, a in base.items():
        b = tuned[name]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"{name}: {a.shape} {a.dtype} in base, {b.shape} {b.dtype} in tuned")
        out[name] = ((1.0 - alpha) * a + alpha * b).astype(a.dtype)  # in the weights' own precision
    return out


def main(argv: list[str] | None = None) -> int:
    import onnx
    from onnx import numpy_helper

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", type=Path, help="the network fine-tuned from (ONNX)")
    ap.add_argument("tuned", type=Path, help="the fine-tuned network (ONNX, the same graph)")
    ap.add_argument("--alpha", type=float, required=True, help="share of the fine-tuned network, 0-1")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    base, tuned = onnx.load(str(args.base)), onnx.load(str(args.tuned))
    if [n.op_type for n in base.graph.node] != [n.op_type for n in tuned.graph.node]:
        ap.error(f"{args.base} and {args.tuned} are not the same graph")

    def weights(model) -> dict[str, np.ndarray]:
        return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}

    try:
        mixed = average_weights(weights(base), weights(tuned), args.alpha)
    except ValueError as e:
        ap.error(str(e))
    for i, init in enumerate(base.graph.initializer):
        base.graph.initializer[i].CopyFrom(numpy_helper.from_array(mixed[init.name], init.name))
    onnx.save(base, str(args.out))
    print(f"wrote {args.out}: {1 - args.alpha:g} x {args.base} + {args.alpha:g} x {args.tuned}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
