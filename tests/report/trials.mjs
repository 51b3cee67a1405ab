// The index's trial list in Debian's chromium (playwright-core): filters, search and sort
// with JavaScript on; the whole list, unfiltered, with JavaScript off.
// Usage: node trials.mjs SITE_DIR PROFILE_DIR   (prints one JSON object)
import { chromium } from "playwright-core";
import path from "node:path";

const [site, profile] = process.argv.slice(2);
const result = { consoleErrors: [], offMachine: [], error: null };
const launch = (dir, javaScriptEnabled) => chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  javaScriptEnabled,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width: 1400, height: 900 },
});
const index = "file://" + path.resolve(site, "index.html");
const visible = (page) => page.locator("#trial-list tbody tr:visible").count();
let context = await launch(profile + "-on", true);
try {
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (/^(file:|data:|about:|blob:)/.test(url)) return route.continue();
    result.offMachine.push(url);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => { if (m.type() === "error") result.consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => result.consoleErrors.push(String(e)));
  await page.goto(index, { waitUntil: "load" });
  result.rows = await page.locator("#trial-list tbody tr").count();
  result.formVisible = await page.locator("#trial-filters").isVisible();
  result.shownAll = await visible(page);
  await page.locator("#f-failures").check();
  result.shownFailures = await visible(page);
  result.failures = await page.locator('#trial-list tbody tr[data-success="0"]').count();
  await page.locator("#f-failures").uncheck();
  await page.selectOption("#f-cause", "loop");
  result.shownLoop = await visible(page);
  result.loop = await page.locator('#trial-list tbody tr[data-causes*=" loop "]').count();
  await page.selectOption("#f-cause", "");
  await page.locator("#f-search").fill("ini-rename");
  result.searched = await page.locator("#trial-list tbody tr:visible td:nth-child(2)").allInnerTexts();
  result.count = await page.locator("#f-count").innerText();
  await page.locator("#f-search").fill("");
  await page.locator("#trial-list thead th", { hasText: "result" }).click();
  result.sortedUp = await page.locator("#trial-list tbody tr td:nth-child(5)").allInnerTexts();
  await page.locator("#trial-list thead th", { hasText: "result" }).click();
  result.sortedDown = await page.locator("#trial-list tbody tr td:nth-child(5)").allInnerTexts();
} catch (e) {
  result.error = String(e);
} finally {
  await context.close();
}
context = await launch(profile + "-off", false);
try {
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(index, { waitUntil: "load" });
  result.offFormVisible = await page.locator("#trial-filters").isVisible();
  result.offShown = await visible(page);
} catch (e) {
  result.error = result.error || String(e);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
