#!/usr/bin/env python3
"""ctest `report_in_browser`: renders the HTML report of a small fixture suite and loads it in headless Chromium.

Usage: browser_check_test.py BENCH_REPORT SOURCE_DIR
The fixture (tests/report/fixtures/tiny/) is a real bench-suite run, cut small: a burst (distribution chart) and
open and ramp runs of a few seconds (timeline charts with target rate, users, unsent, sockets, generator CPU), two
arms. bench-report draws its pages and charts into a temporary folder, then .ci/browser-check loads each page and
fails on a console message, a chart panel without drawn data or a blank screenshot. Exit 77 (skipped) when chromium
or matplotlib is missing; CI installs both (.ci/setup).
"""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: browser_check_test.py BENCH_REPORT SOURCE_DIR")
    bench_report, source = sys.argv[1], sys.argv[2]
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("report_in_browser: skipped: chromium is not installed (apt-get install chromium; .ci/setup does)")
        return SKIP
    if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode != 0:
        print("report_in_browser: skipped: python3-matplotlib is not installed (.ci/setup installs it)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="execbench-browser-test-") as tmp:
        results = os.path.join(tmp, "results")
        shutil.copytree(os.path.join(source, "tests", "report", "fixtures", "tiny"), os.path.join(results, "tiny"))
        readme = os.path.join(tmp, "README.md")
        with open(readme, "w", encoding="utf-8") as f:
            f.write("# fixture\n")
        docs = os.path.join(tmp, "docs")
        run = subprocess.run([bench_report, "--results", results, "--docs", docs, "--readme", readme,
                              "--headline-suites", "tiny",
                              "--charts-script", os.path.join(source, "src", "report", "charts.py")])
        if run.returncode != 0:
            print("report_in_browser: bench-report exited %d" % run.returncode)
            return 1
        env = dict(os.environ, BROWSER_CHECK_SHOTS=os.path.join(tmp, "shots"))
        check = subprocess.run(["/usr/bin/python3", os.path.join(source, ".ci", "browser-check"), docs], env=env)
        return check.returncode


if __name__ == "__main__":
    sys.exit(main())
