// wp-admin in Chromium for the bridge's browser suites: a context that reaches nothing off the machine, and sign-in.
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Refuses every request that leaves the machine. wp-admin's toolbar shows Gravatar images: on a closed network such
 * a request can hang, holding the page's load event past the timeout (CI, 2026-11-25: the login's waitForURL).
 */
export async function localOnly(context: BrowserContext): Promise<BrowserContext> {
  await context.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
  return context;
}

/** Signs in at the site's wp-login.php and waits for wp-admin. */
export async function signInToWpAdmin(page: Page, siteUrl: string, login: string, password: string): Promise<void> {
  await page.goto(`${siteUrl}/wp-login.php`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(password);
  await page.locator('#wp-submit').click();
  await page.waitForURL(/wp-admin/);
}
