"""Dashboard speed on the default sample, measured with AppTest: ``python -m benchmarks.dashboard``.

Each measurement runs in a fresh process, so Streamlit's caches start empty:
- first render of every page (target < 3 s);
- a comparison of every registered method (target < 5 s);
- a 15-α DIC sweep with the page's defaults (target < 10 s);
- a widget change that needs no recomputation (the DIC page's curve selector).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"first render": 3.0, "compare all methods": 5.0, "DIC sweep, 15 α": 10.0}

CHILD = r'''
import json, sys, time
from streamlit.testing.v1 import AppTest
from ui.shell import PAGES
from coarsenrank_core.registry import METHODS

def app():
    return AppTest.from_file({app!r}, default_timeout=600)

def press(at, label):
    [button] = [b for b in at.button if b.label == label]
    start = time.perf_counter()
    button.click().run()
    return time.perf_counter() - start

task = {task!r}
if task.startswith("page:"):
    at = app()
    start = time.perf_counter()
    at.switch_page(task[5:]).run()
    print(json.dumps(time.perf_counter() - start))
elif task == "compare":
    at = app().switch_page("pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(list(METHODS)).run()
    print(json.dumps(press(at, "Run the comparison")))
elif task == "dic":
    at = app().switch_page("pages/dic.py").run()
    sweep = press(at, "Run")
    start = time.perf_counter()
    at.multiselect(key="dic_curves").set_value(["dic", "f", "g"]).run()
    print(json.dumps([sweep, time.perf_counter() - start]))
'''


def measure(task: str):
    code = CHILD.format(app=str(ROOT / "app.py"), task=task)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def report(name: str, seconds: float, target: float | None) -> None:
    verdict = "" if target is None else (
        f"(target < {target:g} s: {'met' if seconds < target else 'MISSED'})")
    print(f"  {name:<42} {seconds:6.2f} s {verdict}")


def main() -> None:
    from ui.shell import PAGES

    print("Dashboard on the default sample (pizza: 8 items, 30 lists), fresh process each:")
    for path, title, _, _ in PAGES:
        report(f"first render: {title}", measure(f"page:{path}"), TARGETS["first render"])
    report("compare, all registered methods", measure("compare"),
           TARGETS["compare all methods"])
    sweep, widget = measure("dic")
    report("DIC sweep, 15 α (page defaults)", sweep, TARGETS["DIC sweep, 15 α"])
    report("widget change without recomputation", widget, None)


if __name__ == "__main__":
    main()
