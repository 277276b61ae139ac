"""The README's Python snippets run as written (each in a fresh interpreter, as a reader would paste it)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_readme_has_python_snippets():
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("i", range(len(SNIPPETS)))
def test_readme_snippet_runs(i, tmp_path):
    r = subprocess.run([sys.executable, "-c", SNIPPETS[i]], cwd=tmp_path, capture_output=True, text=True,
                       timeout=1800)
    assert r.returncode == 0, f"snippet {i}:\n{SNIPPETS[i]}\n{r.stderr[-3000:]}"
    printed = re.findall(r"print\(.*?\)\s*#\s*(.+)", SNIPPETS[i])
    for expected in printed:  # "print(x)  # (4, 84, 84)": the comment is what it prints
        assert expected.strip() in r.stdout, (expected, r.stdout)
