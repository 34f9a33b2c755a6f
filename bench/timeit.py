#!/usr/bin/env python3
"""Best wall time of commands run round-robin, for bench/side_by_side.sh.

usage: timeit.py ROUNDS -- CMD1 ARGS ;; CMD2 ARGS ;; ...   (";;" separates the commands; an
argument NAME=VALUE before a command's program sets that environment variable for it)

Each command is started with posix_spawn and waited for; the time is taken around the spawn and
the wait only (no shell, no `date` processes in the interval), stdout and stderr go to
/dev/null. Rounds interleave the commands, so that a burst of load on a shared machine falls on
all of them. Prints one line per command: the best time in seconds.
"""
import os
import sys
import time


def split(argv):
    cmds, cur = [], []
    for a in argv:
        if a == ";;":
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        cmds.append(cur)
    return cmds


def run(cmd, devnull):
    env = dict(os.environ)
    while cmd and "=" in cmd[0] and not cmd[0].startswith("/"):
        k, v = cmd[0].split("=", 1)
        env[k] = v
        cmd = cmd[1:]
    fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, env, file_actions=fa)
    os.waitpid(pid, 0)
    return time.perf_counter() - t0


def main():
    rounds = int(sys.argv[1])
    cmds = split(sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:])
    best = [float("inf")] * len(cmds)
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(rounds):
        for i, c in enumerate(cmds):
            best[i] = min(best[i], run(list(c), devnull))
    for b in best:
        print("%.4f" % b)


if __name__ == "__main__":
    main()
