// Open one trial page from disk in Debian's chromium (playwright-core) and unfold its
// transcript: prints one JSON object with what was visible before and after the click.
// Usage: node transcript.mjs PAGE_HTML PROFILE_DIR
import { chromium } from "playwright-core";
import path from "node:path";

const [page_file, profile] = process.argv.slice(2);
const result = { consoleErrors: [], offMachine: [], error: null };
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width: 1400, height: 900 },
});
try {
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (/^(file:|data:|about:|blob:)/.test(url)) return route.continue();
    result.offMachine.push(url);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (msg) => { if (msg.type() === "error") result.consoleErrors.push(msg.text()); });
  await page.goto("file://" + path.resolve(page_file), { waitUntil: "load" });
  const folded = page.locator("#transcript details.observation").first();
  const body = folded.locator("pre");
  result.steps = await page.locator("#transcript li.step").count();
  result.summary = (await folded.locator("summary").innerText()).trim();
  result.visibleBefore = await body.isVisible();
  await folded.locator("summary").click();
  result.visibleAfter = await body.isVisible();
  result.unfolded = (await body.innerText()).slice(0, 200);
  const causes = page.locator("#causes li");
  result.causes = await causes.allInnerTexts();
  await page.locator("#causes a").first().click();
  result.hash = new URL(page.url()).hash;
} catch (e) {
  result.error = String(e);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
