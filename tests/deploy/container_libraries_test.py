#!/usr/bin/env python3
"""Issue 23 §4: the runtime stage of deploy/kubernetes/Containerfile installs every shared library the programs
need, so the image's bench-server does not die with "error while loading shared libraries".

Every library `ldd` lists for the built programs (the image builds them with the same preset) is mapped to its
Debian package with `dpkg -S`. Each must be a package that the runtime stage's `apt-get install` names, or one
those packages (or apt, which debian:12-slim has) depend on, as dpkg records the dependencies here. A library
outside that closure, or one `ldd` cannot find, fails the test and is named with its package.

Usage: container_libraries_test.py CONTAINERFILE PROGRAM... (exit 77 where ldd or dpkg is missing: not Debian).
"""
import re
import shutil
import subprocess
import sys


def runtime_stage_packages(containerfile):
    """The packages the last stage's `apt-get install` commands name."""
    text = open(containerfile, encoding="utf-8").read().replace("\\\n", " ")
    stage = re.split(r"(?m)^FROM\s", text)[-1]
    packages = set()
    for line in stage.splitlines():
        if not line.startswith("RUN") or "apt-get install" not in line:
            continue
        for command in line.split("&&"):
            words = command.split()
            if "install" not in words or "apt-get" not in words:
                continue
            packages.update(w for w in words[words.index("install") + 1:] if not w.startswith("-"))
    return packages


def installed_dependencies():
    """Every installed package and what it depends on (Pre-Depends and Depends), each alternative's first
    installed one, from one dpkg-query call."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Pre-Depends}, ${Depends}\n"],
                         capture_output=True, text=True, check=True).stdout
    raw = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    deps = {}
    for package, fields in raw.items():
        deps[package] = []
        for item in fields.split(","):
            for alternative in item.split("|"):
                name = alternative.strip().split(" ")[0].split(":")[0]
                if name in raw:
                    deps[package].append(name)
                    break
    return deps


def closure(roots, deps):
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(deps.get(p, []))
    return seen


def owners(paths):
    """The package owning each path (tried as given and across the merged /usr), from one dpkg -S call."""
    candidates = {}
    for path in paths:
        for c in (path, path.replace("/usr/lib/", "/lib/", 1), path.replace("/lib/", "/usr/lib/", 1)):
            candidates[c] = path
    r = subprocess.run(["dpkg", "-S", *candidates], capture_output=True, text=True)
    found = {}
    for line in r.stdout.splitlines():
        package, _, owned = line.partition(": ")
        if owned in candidates:
            found.setdefault(candidates[owned], package.split(":")[0].split(",")[0].strip())
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    if not (shutil.which("ldd") and shutil.which("dpkg") and shutil.which("dpkg-query")):
        print("skipped: needs ldd, dpkg and dpkg-query (a Debian system)")
        return 77
    listed = runtime_stage_packages(sys.argv[1])
    if not listed:
        print(f"FAIL: no apt-get install in the runtime stage of {sys.argv[1]}")
        return 1
    available = closure(listed | {"apt"}, installed_dependencies())
    failures = []
    libraries = []  # (program, soname, path)
    for program in sys.argv[2:]:
        ldd = subprocess.run(["ldd", program], capture_output=True, text=True, check=True).stdout
        for line in ldd.splitlines():
            m = re.match(r"\s*(\S+) => (\S+)", line)
            if not m:
                continue  # the vDSO and the dynamic loader itself
            soname, path = m.groups()
            if path == "not":
                failures.append(f"{program}: {soname} not found by ldd")
            else:
                libraries.append((program, soname, path))
    owner = owners({path for _, _, path in libraries})
    for program, soname, path in libraries:
        package = owner.get(path)
        if package is None:
            failures.append(f"{program}: {soname} ({path}) belongs to no Debian package")
        elif package not in available:
            failures.append(f"{program}: {soname} comes from {package}, which the runtime stage does not "
                            f"install (it installs: {' '.join(sorted(listed))})")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"ok: every library of {len(sys.argv) - 2} program(s) comes from the runtime stage's packages "
          f"({' '.join(sorted(listed))}) or their dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
