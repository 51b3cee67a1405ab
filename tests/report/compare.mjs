// The compare page and the index's wide tables in Debian's chromium (playwright-core).
// With JavaScript on: the selector shows two configurations' columns, each with its patch;
// with it off: every configuration's column. At 1400 and 390 px: the leaderboard's last
// column is reachable inside its own scroll box and no page is wider than the window.
// Usage: node compare.mjs SITE_DIR TRIAL_PAGE PROFILE_DIR   (prints one JSON object)
import { chromium } from "playwright-core";
import path from "node:path";

const [site, trialPage, profile] = process.argv.slice(2);
const result = { consoleErrors: [], offMachine: [], error: null, widths: {} };
const launch = (dir, javaScriptEnabled, width) => chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  javaScriptEnabled,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width, height: 900 },
});
const url = (rel) => "file://" + path.resolve(site, rel);
// The visible columns of repeat 1: their configuration and the text of their patch.
const columns = (page) => page.locator("#repeat-1 .col:visible").evaluateAll((cols) =>
  cols.map((c) => ({
    config: c.querySelector("h3.cfg").textContent,
    patch: c.querySelector("pre.diff") ? c.querySelector("pre.diff").innerText : null,
    patchHeight: c.querySelector("pre.diff") ? c.querySelector("pre.diff").getBoundingClientRect().height : 0,
  })));
// The leaderboard's last heading against its scroll box, before and after scrolling it.
const lastColumn = (page) => page.evaluate(() => {
  const th = document.querySelector("table.board thead th:last-child");
  const box = th.closest(".scroll");
  const edge = () => ({ right: th.getBoundingClientRect().right, boxRight: box.getBoundingClientRect().right });
  const before = edge();
  box.scrollLeft = box.scrollWidth;
  const after = edge();
  return {
    text: th.textContent, before, after, scrolls: box.scrollWidth > box.clientWidth,
    overflowX: getComputedStyle(box).overflowX,
    pageWidth: document.documentElement.scrollWidth, window: window.innerWidth,
  };
});
const pageWidth = (page) => page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);

for (const width of [1400, 390]) {
  const context = await launch(`${profile}-on-${width}`, true, width);
  try {
    await context.route("**/*", (route) => {
      const u = route.request().url();
      if (/^(file:|data:|about:|blob:)/.test(u)) return route.continue();
      result.offMachine.push(u);
      return route.abort();
    });
    const page = context.pages()[0] || (await context.newPage());
    page.on("console", (m) => { if (m.type() === "error") result.consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => result.consoleErrors.push(String(e)));
    await page.goto(url("index.html"), { waitUntil: "load" });
    result[`board${width}`] = await lastColumn(page);
    await page.locator("a.compare-link").first().click();
    await page.waitForLoadState("load");
    result.widths[`compare${width}`] = await pageWidth(page);
    if (width === 1400) {
      result.compareUrl = page.url();
      result.pickerVisible = await page.locator("#compare-pick").isVisible();
      result.picked = await columns(page);
      await page.selectOption("#c-right", { index: 3 });
      result.repicked = await columns(page);
      await page.locator("#c-all").check();
      result.all = (await columns(page)).length;
      await page.goto(url(trialPage), { waitUntil: "load" });
      await page.locator("#compare").click();
      await page.waitForLoadState("load");
      result.fromTrial = page.url();
    }
    for (const rel of ["index.html", trialPage]) {
      await page.goto(url(rel), { waitUntil: "load" });
      result.widths[`${rel}@${width}`] = await pageWidth(page);
    }
  } catch (e) {
    result.error = result.error || String(e);
  } finally {
    await context.close();
  }
}
const context = await launch(profile + "-off", false, 1400);
try {
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(url("compare/" + path.basename(new URL(result.compareUrl || "file:///x.html").pathname)), { waitUntil: "load" });
  result.offPickerVisible = await page.locator("#compare-pick").isVisible();
  result.offColumns = await columns(page);
} catch (e) {
  result.error = result.error || String(e);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
