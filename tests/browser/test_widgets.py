"""A learner moves a metric widget in JupyterLab (headless Chromium) and reads the new number.

Notebook 02's explorer (``helpers.course.explore.HitExplorer``) starts from the car list at K = 5:
P@5 = 4/5. Clicking rank 4 makes it a hit, so the widget must then show P@5 = 5/5 and say that rank
4 is a hit; dragging K is covered by tests/course/test_explore.py. Skips loudly without Chromium or
Playwright and fails under CI=true (see conftest.py), like the JupyterLab test.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

NOTEBOOK = "02-cutoffs.ipynb"
MARKER = "HitExplorer(ex.CAR_LABELS, k=5"


def _driver():
    name = "course_browser_lab_driver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("lab_driver.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_a_learner_moves_a_hit_and_the_widget_shows_the_new_precision(lab):
    from playwright.sync_api import expect

    driver = _driver()
    context = lab.browser.new_context(viewport=driver.VIEWPORT)
    try:
        page = context.new_page()
        page.goto(lab.server.url(NOTEBOOK), wait_until="domcontentloaded")
        page.wait_for_selector(f"{driver.PANEL} .jp-Notebook .jp-Cell", timeout=60_000)
        driver._wait_for(page, driver.KERNEL_STATE_JS, "the kernel to start", 60)
        driver._click_menu(page, "Run", "Run All Cells")
        driver._wait_for(page, driver.RUN_FINISHED_JS, "Run All Cells to finish", 120)
        index = page.evaluate(driver.FIND_CELL_JS, MARKER)
        assert index >= 0, f"{NOTEBOOK} has no cell with {MARKER!r}"
        cell = page.locator(f"{driver.PANEL} .jp-Notebook .jp-CodeCell").nth(index)
        cell.scroll_into_view_if_needed()
        precision = cell.locator('.widget-html .topk-value[data-metric="P"]')
        precision.wait_for(timeout=30_000)  # the live widget, not the stored static table
        assert precision.inner_text().strip() == "0.8000"
        rank_4 = cell.locator("button.widget-toggle-button", has_text="4").first
        assert "mod-active" not in (rank_4.get_attribute("class") or "")  # rank 4 starts as a miss
        rank_4.click()
        expect(precision).to_have_text("1.0000", timeout=15_000)  # the locator re-reads the updated table
        shown = cell.locator(".widget-html .topk-explorer").inner_text()
        assert "4:hit" in shown and "5 / 5" in shown, shown
        lab.server.shutdown_sessions()
    finally:
        context.close()
