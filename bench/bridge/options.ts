// The bridge benchmark's options (bench/bridge.ts describes them), its constants and its progress lines.

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}
export const QUICK = process.argv.includes('--quick');
export const ROUNDS = Math.max(1, Number(option('rounds') ?? (QUICK ? 8 : 30)));
export const BOOKINGS = Math.max(10, Number(option('bookings') ?? (QUICK ? 1_000 : 5_000)));
export const CUSTOMERS = Math.max(1, Math.floor(BOOKINGS / 10));
export const WARMUP = QUICK ? 1 : 2;
export const BACKFILL_ROUNDS = Math.max(1, Number(option('backfill-rounds') ?? (QUICK ? 1 : 3)));
export const BATCH = 200; // Waypost_Bridge_Backfill::DEFAULT_SIZE, what `wp waypost backfill` uses.
export const FIRST_ID = 100_000; // Generated post ids start here (far above the fixture's and the checkouts').
// Fixture booking the checkout copies: Anna Schmidt #28, 2 adults on trip 25, paid in full (payment 30).
export const FROM = 28;
export const TOKEN = 'test-host-token';
export const UNREACHABLE_OPTION = 'waypost_bridge_unreachable_until'; // Waypost_Bridge_Forwarder::UNREACHABLE_OPTION

export const SIDES = ['off', 'up', 'down', 'hang', 'cooldown'] as const;
export type Side = (typeof SIDES)[number];

export const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s`;
export const progress = (line: string) => console.error(`[${elapsed()}] ${line}`);
export const thousands = (n: number) => n.toLocaleString('en');
