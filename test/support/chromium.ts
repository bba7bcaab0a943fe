/**
 * Headless Chromium for the browser tests: Debian's chromium through playwright-core, with the flags it
 * needs in a container; where it is not installed, the tests skip with a message naming what is missing.
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"];
/** True where Debian's chromium is not installed (the browser tests skip). */
export const chromiumMissing = !existsSync(CHROMIUM);
/** Why a browser test was skipped. */
export const CHROMIUM_SKIP = `Debian's chromium is not installed at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
