# Options added from another module (arguments.py imports add_extra_arguments).
def add_extra_arguments(parser):
    parser.add_argument("--extra-knob", type=int, default=3, help="From another module.")
    _more(parser)


def _more(parser):
    parser.add_argument("--extra-more", action="store_true")


def helper_not_for_options(parser):
    parser.add_argument("--not-imported-as-options", type=int)


def unrelated(p):
    p.add_argument("--unrelated-parser-option")
