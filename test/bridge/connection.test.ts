// The WordPress bridge's connection to Waypost, against a real WordPress (the WP Travel Engine 6.8.0 fixture) and a
// running Waypost: the stored token (encrypted, never printed back), WP-CLI's commands, and the client's puts,
// deletes, sign-in links and batches (split above 500 operations, one by one where the endpoint is missing), each
// request with a W3C traceparent of its own (issue 37).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';

const available = await hasWordPress();

describe.skipIf(!available)('bridge connection', () => {
  let waypost: Waypost;
  let site: WordPress;
  let address: string;

  beforeAll(async () => {
    waypost = await testWaypost();
    address = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR] });
  }, 60_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('stores a typed token encrypted, shows only its last 4 characters, and tests the connection', async () => {
    const out = JSON.parse(await site.php(`
      $before = Waypost_Bridge_Connection_Check::run();
      Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
      Waypost_Bridge_Connection::set_token( 'wrong-token-1234' );
      $wrong = Waypost_Bridge_Connection_Check::run();
      Waypost_Bridge_Connection::set_token( 'test-host-token' );
      echo wp_json_encode( array(
        'before' => $before, 'wrong' => $wrong, 'right' => Waypost_Bridge_Connection_Check::run(),
        'stored' => get_option( Waypost_Bridge_Connection::OPTION_TOKEN ),
        'hint' => Waypost_Bridge_Connection::token_hint(),
        'token' => Waypost_Bridge_Connection::get_token(),
      ) );
    `));
    expect(out.before).toMatchObject({ ok: false, status: 0 });
    expect(out.before.message).toMatch(/not connected/);
    expect(out.wrong).toMatchObject({ ok: false, status: 401 });
    expect(out.right).toMatchObject({ ok: true, status: 200 });
    expect(out.stored).toMatch(/^wpb1:/);
    expect(out.stored).not.toContain('test-host-token');
    expect(out.hint).toBe('••••••••oken');
    expect(out.token).toBe('test-host-token');
  });

  it('cannot read the stored token once the salts change', async () => {
    const out = JSON.parse(await site.php(`
      add_filter( 'salt', function () { return 'other salt'; } );
      echo wp_json_encode( array(
        'token' => Waypost_Bridge_Connection::get_token(), 'problem' => Waypost_Bridge_Connection::token_problem(),
      ) );
    `));
    expect(out.token).toBe('');
    expect(out.problem).toMatch(/Enter it again/);
  });

  it('registers `wp waypost backfill|status|test-connection` under WP-CLI', async () => {
    const out = await site.php(`
      define( 'WP_CLI', true );
      class WP_CLI {
        public static $commands = array();
        public static function add_command( $name, $callable ) { self::$commands[] = $name; }
        public static function log( $m ) { echo $m, "\\n"; }
        public static function success( $m ) { echo 'Success: ', $m, "\\n"; }
      }
      Waypost_Bridge_Cli::register();
      echo implode( ',', WP_CLI::$commands ), "\\n";
      Waypost_Bridge_Cli::status();
    `);
    expect(out).toContain('waypost backfill,waypost status,waypost test-connection');
    expect(out).toMatch(/Backfill: not started/);
  });

  it('puts, deletes and signs in through the client', async () => {
    const out = JSON.parse(await site.php(`
      echo wp_json_encode( array(
        'put' => Waypost_Bridge_Client::put( 'trips', 19, Waypost_Bridge_Mapper::record( 'trips', 19 ) ),
        'del' => Waypost_Bridge_Client::delete( 'trips', 19 ),
        'gone' => Waypost_Bridge_Client::delete( 'trips', 19 ),
        'bad' => Waypost_Bridge_Client::put( 'trips', 19, array( 'title' => 5 ) ),
        'link' => Waypost_Bridge_Client::sign_in_link( 'admin@example.org', 'Admin', 3 ),
      ) );
    `));
    expect(out.put).toMatchObject({ status: 201, error: null, body: { created: true } });
    expect(out.del).toMatchObject({ status: 204, error: null });
    expect(out.gone).toMatchObject({ status: 404, error: null });
    expect(out.bad.status).toBe(400);
    expect(out.bad.error).toMatch(/title/);
    expect(out.link.status).toBe(201);
    expect(out.link.body.url).toMatch(/sign-in-link\?token=/);
  });

  it('splits a batch of more than 500 operations and numbers the results across the parts', async () => {
    const out = JSON.parse(await site.php(`
      $ops = array();
      for ( $i = 1; $i <= 501; $i++ ) {
        $ops[] = array(
          'op' => 'put', 'resource' => 'trips', 'id' => 1000 + $i, 'data' => array( 'title' => "Trip $i" ),
        );
      }
      $ops[] = array( 'op' => 'put', 'resource' => 'trips', 'id' => 2000, 'data' => array( 'title' => 7 ) );
      $r = Waypost_Bridge_Batch_Client::send( $ops );
      echo wp_json_encode( array( 'error' => $r['error'], 'n' => count( $r['body']['results'] ),
        'last' => end( $r['body']['results'] ), 'first' => $r['body']['results'][0] ) );
    `));
    expect(out).toMatchObject({ error: null, n: 502, first: { index: 0, status: 201 },
      last: { index: 501, status: 400 } });
  });

  it('sends the operations one by one to a Waypost without the batch endpoint', async () => {
    // An older Waypost: no POST /host/v1/batch (its 404 for an unknown route); everything else passes through.
    const app = await waypost.app();
    const old = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        if (req.method === 'POST' && req.url === '/host/v1/batch') {
          res.writeHead(404, { 'content-type': 'application/problem+json' });
          res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found',
            detail: 'No route for POST /host/v1/batch' }));
          return;
        }
        const answer = await app.inject({ method: req.method as 'PUT', url: req.url!, headers: req.headers,
          payload: Buffer.concat(chunks) });
        res.writeHead(answer.statusCode,
          { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
      const out = JSON.parse(await site.php(`
        // Another address: the token saved for the old one is removed and has to be given again.
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(url)} );
        Waypost_Bridge_Connection::set_token( 'test-host-token' );
        $r = Waypost_Bridge_Batch_Client::send( array(
          array( 'op' => 'put', 'resource' => 'trips', 'id' => 3001, 'data' => array( 'title' => 'A' ) ),
          array( 'op' => 'put', 'resource' => 'trips', 'id' => 3002, 'data' => array( 'title' => 7 ) ),
          array( 'op' => 'delete', 'resource' => 'trips', 'id' => 3001 ),
        ) );
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
        Waypost_Bridge_Connection::set_token( 'test-host-token' );
        echo wp_json_encode( $r );
      `));
      expect(out.error).toBeNull();
      expect(out.body.results.map((r: any) => [r.index, r.status])).toEqual([[0, 201], [1, 400], [2, 204]]);
      expect(out.body.results[1].error.detail).toMatch(/title/);
    } finally {
      old.close();
    }
  });

  it('sends a W3C traceparent with a fresh trace id on every request to Waypost', async () => {
    // A pass-through in front of Waypost that notes each request's traceparent header.
    const app = await waypost.app();
    const seen: { request: string; traceparent: unknown }[] = [];
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        seen.push({ request: `${req.method} ${req.url}`, traceparent: req.headers.traceparent });
        const answer = await app.inject({ method: req.method as 'PUT', url: req.url!, headers: req.headers,
          payload: Buffer.concat(chunks) });
        res.writeHead(answer.statusCode,
          { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      await site.php(`
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(url)} );
        Waypost_Bridge_Connection::set_token( 'test-host-token' );
        Waypost_Bridge_Connection_Check::run();
        Waypost_Bridge_Client::put( 'trips', 3101, array( 'title' => 'Traced' ) );
        Waypost_Bridge_Batch_Client::send( array( array( 'op' => 'delete', 'resource' => 'trips', 'id' => 3101 ) ) );
        Waypost_Bridge_Client::delete( 'trips', 3101 );
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
        Waypost_Bridge_Connection::set_token( 'test-host-token' );
      `);
    } finally {
      proxy.close();
    }
    expect(seen.map((s) => s.request)).toEqual(['GET /healthz', 'POST /host/v1/batch', 'PUT /host/v1/trips/3101',
      'POST /host/v1/batch', 'DELETE /host/v1/trips/3101']);
    for (const { traceparent } of seen) expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traces = seen.map((s) => String(s.traceparent).split('-')[1]);
    expect(new Set(traces).size).toBe(seen.length);
    expect(traces).not.toContain('0'.repeat(32));
  });
});
