# A small Relax-like arguments module for the Python reader's tests (written for perf-doctor;
# the shapes are those Relax's own relax/utils/arguments.py uses).
import argparse
import json

from relax.backends.extra.opts import (
    add_extra_arguments,
    helper_not_for_options,
)
from relax.backends.missing import add_gone_arguments


def reset_arg(parser, name, **kwargs):
    for action in parser._actions:
        if name in action.option_strings:
            action.default = kwargs["default"]
            break
    else:
        parser.add_argument(name, **kwargs)


def _pre_parse_mode():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--train-backend", type=str, choices=["megatron"], default="megatron")
    p.add_argument("--debug-rollout-only", action="store_true", default=False)
    return p


def get_extra_args_provider():
    def add_slime_arguments(parser):
        def add_cluster_arguments(parser):
            parser.add_argument("--actor-num-nodes", type=int, default=1, help="Number of nodes for training actor")
            parser.add_argument(
                "--offload-train",
                action=argparse.BooleanOptionalAction,
                help=(
                    "Whether to offload the training actor to CPU during training. "
                    "This will always be true when --colocate is set."
                ),
            )
            parser.add_argument("--resource", type=json.loads, help="JSON config dict")
            parser.add_argument("--train-memory-margin-bytes", type=int, default=1024**3,
                                help='Margin, 1 "GB" by default.\tTab')
            parser.add_argument("--lr-scale", type=float, default=-1.5e-1)
            parser.add_argument("--checkpoint-engine-backend", type=str, default=device_backend())
            parser.add_argument("--polling-mode", type=bool, default=True)
            parser.add_argument("--eval-datasets", nargs="+", type=str, default=[])
            parser.add_argument("--advantage-estimator", choices=["grpo", "gspo", "ppo"], default="grpo")
            parser.add_argument("--mode", choices=list(Modes), default=None)
            parser.add_argument("--old-knob", action="store_true", help="[Deprecated] use --new-knob")
            parser.add_argument("--disable-weights-backuper", action="store_false", dest="enable_weights_backuper")
            parser.add_argument(r"--raw-name", help=r"a \n stays")
            reset_arg(parser, "--distributed-timeout-minutes", type=int, default=30)
            return parser

        add_cluster_arguments(parser)
        return parser

    return add_slime_arguments
