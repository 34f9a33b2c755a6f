"""The little the Python tests that drive the binary share: counted checks and a runner."""
import subprocess


class Checker:
    def __init__(self, binary):
        self.binary, self.failures = binary, 0

    def check(self, ok, what):
        if not ok:
            self.failures += 1
            print("FAIL:", what)

    def run(self, *args):
        p = subprocess.run([self.binary] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def exit(self, name):
        print("%s: %s" % (name, "ok" if not self.failures else "%d failed" % self.failures))
        return 1 if self.failures else 0
