// A clock the test moves by hand; pass it as `clock` to testWaypost().
export interface FakeClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function manualClock(start: number): FakeClock {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; }, set: (ms) => { t = ms; } };
}
