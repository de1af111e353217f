"""Runs a command and writes its peak RSS (KiB) to a file: RSS_FILE CMD ARGS...

bench.py starts commands through this small process instead of directly: a child forked
from a process inherits that process's peak RSS as its own starting value (Linux keeps it
across exec), so a command forked from bench.py (with PyTorch loaded) would report
bench.py's peak. Forked from here, a command starts from this interpreter's few MiB."""
import os
import subprocess
import sys

p = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
