/** Debian's Chromium as the tests run it: headless, and no connection of its own to the (closed) network. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update'];
