import argparse


def add(parser):
    parser.add_argument("--fine", type=int, default=1)
    parser.add_argument("--broken", type=int, default=(
