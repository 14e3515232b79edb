// The load of bench/host-writes.ts: a wrk Lua script that makes every request (every batch item) a new booking id
// with a realistic booking body, and checks every answer; wrk() runs it once and fails loudly on any bad answer.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HOST_TOKEN = 'bench-host-writes-token-0123456789';

/** A booking as the bridge maps one (test/host fixtures, bench/recover.ts), @…@ filled in per request by Lua. */
const BOOKING = JSON.stringify({
  status: 'booked', currency: 'EUR', total_amount: '@TOTAL@.00', paid_amount: '50.00', booked_at: '@WHEN@',
  customer: { id: '@CID@', email: 'customer@ID@@example.com', first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: '@TRIP@', title: 'Douro Valley Walk', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '100.00', total: '200.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1', created_at: '@WHEN@', updated_at: '@WHEN@',
}).replace(/"@(CID|TRIP)@"/g, '@$1@');

// Each thread's ids start at args[1] + its index × 10^8; every request (or batch item) takes the next one. The
// response callback counts non-2xx answers and, for a batch, answers whose items are not all 200/201; done() prints
// one JSON line (latency in µs) that the parent reads.
const LUA = `
local template = [[${BOOKING}]]
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
function init(args)
  next_id = tonumber(args[1]) + tid * 100000000
  batch = tonumber(args[2])
  non2xx = 0
  bad_batches = 0
  wrk.method = batch > 0 and "POST" or "PUT"
  wrk.headers["authorization"] = "Bearer ${HOST_TOKEN}"
  wrk.headers["content-type"] = "application/json"
end
local function booking(id)
  local when = os.date("!%Y-%m-%dT%H:%M:%SZ", 1704067200 + id * 60)
  return (template:gsub("@ID@", id):gsub("@CID@", id):gsub("@TOTAL@", id % 900 + 100)
    :gsub("@TRIP@", id % 5 + 1):gsub("@WHEN@", when))
end
function request()
  if batch == 0 then
    next_id = next_id + 1
    return wrk.format(nil, "/host/v1/bookings/" .. next_id, nil, booking(next_id))
  end
  local ops = {}
  for i = 1, batch do
    next_id = next_id + 1
    ops[i] = '{"op":"put","resource":"bookings","id":' .. next_id .. ',"data":' .. booking(next_id) .. '}'
  end
  return wrk.format(nil, "/host/v1/batch", nil, '{"operations":[' .. table.concat(ops, ",") .. ']}')
end
function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    if non2xx == 1 then io.stderr:write("first non-2xx answer: " .. status .. " " .. body:sub(1, 400) .. "\\n") end
  elseif batch > 0 then
    local _, ok = body:gsub('"status":20[01]', "")
    if ok ~= batch then
      bad_batches = bad_batches + 1
      if bad_batches == 1 then io.stderr:write("first batch with failed items: " .. body:sub(1, 600) .. "\\n") end
    end
  end
end
function done(summary, latency, requests)
  local non, bad = 0, 0
  for _, t in ipairs(threads) do
    non = non + t:get("non2xx")
    bad = bad + t:get("bad_batches")
  end
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"non_2xx":%d,"bad_batches":%d,"socket_errors":%d,'
    .. '"p50":%.0f,"p95":%.0f,"p99":%.0f,"max":%.0f,"mean":%.0f}\\n', summary.requests, summary.duration, non, bad,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, latency.mean))
end
`;
const scriptDir = mkdtempSync(join(tmpdir(), 'waypost-bench-host-writes-'));
const SCRIPT = join(scriptDir, 'host-writes.lua');
writeFileSync(SCRIPT, LUA);

interface WrkRun {
  requests: number; duration_us: number; non_2xx: number; bad_batches: number; socket_errors: number;
  p50: number; p95: number; p99: number; max: number; mean: number;
}

/** One wrk run; throws on any non-2xx answer, socket error or failed batch item (the figures would be a lie). */
export function wrk(url: string, seconds: number, connections: number, firstId: number, batch: number, warm = false)
  : WrkRun {
  const res = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', SCRIPT, url,
    '--', String(firstId), String(batch)], { encoding: 'utf8' });
  const line = /^WRK (.*)$/m.exec(res.stdout ?? '')?.[1];
  if (res.status !== 0 || !line) throw new Error(`wrk failed (${res.status}): ${res.stdout}\n${res.stderr}`);
  const run = JSON.parse(line) as WrkRun;
  // A warm-up may end before its first batch is answered (wrk drops what is in flight at its end).
  if (run.requests === 0 && !warm) {
    const what = batch > 0 ? `batch of ${batch}` : 'PUT';
    throw new Error(`wrk (${what}) against ${url}: no answer in ${seconds} s (a machine too busy for so short a run?)`);
  }
  if (run.non_2xx > 0 || run.socket_errors > 0 || run.bad_batches > 0) {
    throw new Error(`wrk against ${url}: ${run.requests} requests, ${run.non_2xx} non-2xx, ${run.socket_errors} `
      + `socket errors, ${run.bad_batches} batches with failed items\n${res.stderr}`);
  }
  return run;
}
