"""Compiles one kernel with glslc (shaders/meson.build's 'glslc' rows, with the option
spirv_cache), through a folder of earlier outputs. CI builds vkml four times (plain, ASan,
TSan, fuzz: .ci/run), each compiling the same ~960 kernels with the same arguments; from
the second build on, a kernel is a copy. The key is glslc's binary (path, size, time), the
arguments, and every file of the source's folder and of the include folders (-I), so that
any change to what the kernel could read misses. (glslc -E, to key on what it reads alone,
takes about as long as most compiles.) The depfile is kept beside the output.
    glslc_cached.py FOLDER GLSLC OUT DEPFILE [glslc arguments: flags, defines, the source]"""
import hashlib
import os
import shutil
import sys


def key_of(glslc, args):
    h = hashlib.sha256()
    st = os.stat(glslc)
    h.update(("%s %d %d\0" % (os.path.realpath(glslc), st.st_size, st.st_mtime_ns)).encode())
    h.update("\0".join(args).encode() + b"\0")
    folders = [os.path.dirname(args[-1]) or "."]
    for i, a in enumerate(args[:-1]):
        if a == "-I":
            folders.append(args[i + 1])
        elif a.startswith("-I"):
            folders.append(a[2:])
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    h.update(path.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def keep(data, dst):
    """data written to dst whole, even with another build writing the same key."""
    tmp = "%s.%d.tmp" % (dst, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, dst)


def main():
    cache, glslc, out, dep, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    key = key_of(glslc, args)
    kept = os.path.join(cache, key[:2], key)
    if os.path.isfile(kept + ".spv.h") and os.path.isfile(kept + ".d"):
        shutil.copyfile(kept + ".spv.h", out)
        with open(kept + ".d") as f:
            deps = f.read()
        with open(dep, "w") as f:
            f.write(out + ":" + deps)
        return 0
    import subprocess
    rc = subprocess.call([glslc] + args + ["-MD", "-MF", dep, "-o", out])
    if rc == 0:
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        with open(dep, "rb") as f:
            keep(f.read().split(b":", 1)[1], kept + ".d")  # what follows "OUT:"
        with open(out, "rb") as f:
            keep(f.read(), kept + ".spv.h")
    return rc


if __name__ == "__main__":
    sys.exit(main())
