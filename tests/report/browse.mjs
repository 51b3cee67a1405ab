// Drive Debian's chromium through playwright-core over a generated site opened from disk.
// Usage: node browse.mjs SITE_DIR SHOT_DIR PROFILE_DIR [EXTRA_PAGE]
// Prints one JSON object: console errors, page errors, requests that would have left the
// machine (each aborted before it is sent), the pages visited and the screenshots taken.
import { chromium } from "playwright-core";
import path from "node:path";

const [site, shots, profile, extra] = process.argv.slice(2);
const result = { consoleErrors: [], pageErrors: [], offMachine: [], visited: [], screenshots: [], error: null };
const local = (url) => /^(file:|data:|about:|blob:)/.test(url);

const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
  ],
  viewport: { width: 1280, height: 900 },
});
try {
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (local(url)) return route.continue();
    result.offMachine.push(url);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (msg) => {
    if (msg.type() === "error") result.consoleErrors.push(msg.text());
  });
  page.on("pageerror", (err) => result.pageErrors.push(String(err)));
  page.on("dialog", (d) => { result.pageErrors.push("dialog: " + d.message()); d.dismiss(); });
  const visit = async (extraFields = {}) =>
    result.visited.push({ url: page.url(), title: await page.title(), ...extraFields });

  await page.goto("file://" + path.resolve(site, "index.html"), { waitUntil: "load" });
  await visit();
  await page.screenshot({ path: path.join(shots, "index.png") });
  result.screenshots.push("index.png");
  result.frontier = {};
  for (const id of ["frontier-cost", "frontier-time"]) {
    const figure = page.locator("#" + id);
    if ((await figure.count()) === 0) continue;
    const box = await figure.locator("svg").boundingBox();
    result.frontier[id] = {
      points: await figure.locator("svg circle[r='5']").count(),
      ringed: await figure.locator("svg circle.frontier-point").count(),
      width: box ? box.width : 0,
      height: box ? box.height : 0,
      text: await figure.locator("svg").textContent(),
    };
    await figure.screenshot({ path: path.join(shots, id + ".png") });
    result.screenshots.push(id + ".png");
  }

  if ((await page.locator("a.trial-link").count()) === 0) {
    throw new Error("no a.trial-link on the index");
  }
  const link = page.locator("a.trial-link").first();
  const trialId = await link.getAttribute("title");
  await link.click();
  await page.waitForURL(/\/trials\//);
  await page.waitForLoadState("load");
  await visit({ h1: await page.locator("h1").innerText(), trialId });
  await page.screenshot({ path: path.join(shots, "trial.png") });
  result.screenshots.push("trial.png");

  await page.locator("#back").click();
  await page.waitForURL(/index\.html/);
  await page.waitForLoadState("load");
  await visit();

  if (extra) {
    await page.goto("file://" + path.resolve(site, extra), { waitUntil: "load" });
    await visit({ h1: await page.locator("h1").innerText() });
  }
} catch (err) {
  result.error = String(err);
} finally {
  await context.close();
}
process.stdout.write(JSON.stringify(result) + "\n");
